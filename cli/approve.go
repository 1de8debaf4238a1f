package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/noora-hooks/noora-hooks/internal/consent"
	"github.com/noora-hooks/noora-hooks/internal/engine"
)

// ApproveCmd is `noora-hooks approve`.
type ApproveCmd struct {
	Yes  bool `short:"y" help:"Approve every pending hook without asking (service accounts, CI)."`
	JSON bool `help:"Print what was approved as JSON (shape: docs/cli.md); the questions go to stderr." name:"json"`
}

// Help is the long help of `approve`.
func (ApproveCmd) Help() string {
	return `For each configured (event, command) pair that is not approved, or whose script changed since it was approved, approve shows the event and the command and asks "Allow this hook to run? [y/N]". Only y or yes approves; each yes is recorded in the allowlist at once, a no is not recorded. Without a terminal, use --yes (service accounts, CI), or list the pairs in <home>/shell-hooks-allowlist.json by hand.`
}

// pendingPair is an (event, command) pair that needs approval: never
// approved, or approved before its script changed.
type pendingPair struct {
	engine.HookState
	Result  string // approved, declined, unanswered
	Record  consent.Approval
	Changed bool
}

// Run asks at the terminal about each pending pair (SPEC §5).
func (c *ApproveCmd) Run(g *Globals, env *Env) error {
	eng, err := loadManaged(g, env)
	if err != nil {
		return err
	}
	if eng.SafeMode {
		env.Warnf("%s", safeModeNote)
	}
	states, already := eng.Pending()
	pending := make([]*pendingPair, len(states))
	for i, s := range states {
		pending[i] = &pendingPair{HookState: s, Result: "unanswered", Changed: s.Drift}
	}

	switch {
	case len(pending) == 0:
	case c.Yes || g.AcceptHooks:
		records, err := eng.Approve(states)
		if err != nil {
			return err
		}
		for i, p := range pending {
			p.Result, p.Record = "approved", records[i]
		}
	case !isTerminal(env.Stdin):
		return notATerminal(eng, pending)
	default:
		err = c.ask(eng, env, pending)
	}

	if c.JSON {
		if jerr := writeJSON(env.Stdout, approveReportOf(eng, already, pending)); jerr != nil {
			return jerr
		}
	} else {
		printApproveSummary(printableWriter{env.Stdout}, eng, already, pending)
	}
	return err
}

// isTerminal reports whether r is a terminal the user can answer at. x/term
// asks the terminal driver (an ioctl), where a Stat mode check would take
// /dev/null, also a character device, for one.
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

func notATerminal(eng *engine.Engine, pending []*pendingPair) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s approval, but stdin is not a terminal to ask at:", plural(len(pending), "shell hook needs", "shell hooks need"))
	for _, p := range pending {
		fmt.Fprintf(&b, "\n  %s: %s", p.Hook.Event, p.Hook.Command)
	}
	fmt.Fprintf(&b, "\nRun \"noora-hooks approve\" in a terminal; or \"noora-hooks approve --yes\" to approve them all without asking (service accounts, CI); or add them to %s by hand", eng.Store.Path)
	return errors.New(b.String())
}

// ask puts the first-use question of SPEC §5 for each pending pair and
// records each yes at once, so that an interrupted session keeps what was
// answered. Only y or yes approves; a no is not recorded. End of input stops
// the questions and is an error: the rest stay unapproved.
func (c *ApproveCmd) ask(eng *engine.Engine, env *Env, pending []*pendingPair) error {
	in := bufio.NewReader(env.Stdin)
	out := env.Stderr
	for i, p := range pending {
		fmt.Fprintf(out, "\nShell hook %d of %d needs approval:\n", i+1, len(pending))
		fmt.Fprintf(out, "  Event:   %s\n", p.Hook.Event)
		fmt.Fprintf(out, "  Command: %s\n", p.Hook.Command)
		if p.Changed {
			fmt.Fprintf(out, "  Changed: %s\n", driftFact(p.HookState))
		}
		fmt.Fprintf(out, "Shell hooks run with your full user credentials: this command can do anything you can. Allow only commands you wrote or reviewed.\n")
		fmt.Fprintf(out, "Allow this hook to run? [y/N] ")
		answer, err := readAnswer(in)
		if err != nil {
			fmt.Fprintln(out)
			left := len(pending) - i
			if errors.Is(err, io.EOF) {
				return fmt.Errorf("input ended before every hook was answered: %s", plural(left, "hook stays unapproved", "hooks stay unapproved"))
			}
			return fmt.Errorf("read answer: %w: %s", err, plural(left, "hook stays unapproved", "hooks stay unapproved"))
		}
		switch strings.ToLower(strings.TrimSpace(answer)) {
		case "y", "yes":
			records, err := eng.Approve([]engine.HookState{p.HookState})
			if err != nil {
				return err
			}
			p.Record = records[0]
			p.Result = "approved"
			fmt.Fprintf(out, "Approved.\n")
		default:
			p.Result = "declined"
			if p.Changed {
				fmt.Fprintf(out, "Not approved; nothing was recorded, so the earlier approval stays (withdraw it with: noora-hooks revoke %q).\n", p.Hook.Command)
			} else {
				fmt.Fprintf(out, "Not approved; nothing was recorded: exec skips this hook, and the next \"noora-hooks approve\" asks again.\n")
			}
		}
	}
	return nil
}

// maxAnswer bounds one answer: "yes" needs 3 bytes; the rest of a longer line
// is read and dropped.
const maxAnswer = 64

// readAnswer reads one line. A partial line before the end of input counts as
// the answer; the end of input with nothing typed is io.EOF.
func readAnswer(r *bufio.Reader) (string, error) {
	var line []byte
	for {
		c, err := r.ReadByte()
		switch {
		case err == io.EOF && len(line) > 0:
			return string(line), nil
		case err != nil:
			return "", err
		case c == '\n':
			return string(line), nil
		case len(line) < maxAnswer:
			line = append(line, c)
		}
	}
}

func printApproveSummary(w io.Writer, eng *engine.Engine, already int, pending []*pendingPair) {
	if len(pending) == 0 {
		if already == 0 {
			fmt.Fprintf(w, "No shell hooks are configured in %s: nothing to approve.\n", eng.Paths.Config)
			return
		}
		fmt.Fprintf(w, "Every shell hook in %s is approved (%s).\n", eng.Paths.Config, plural(already, "pair", "pairs"))
		return
	}
	counts := map[string]int{}
	for _, p := range pending {
		counts[p.Result]++
		fmt.Fprintf(w, "%-10s %s: %s\n", p.Result, p.Hook.Event, p.Hook.Command)
	}
	fmt.Fprintf(w, "%d approved, %d declined, %d unanswered", counts["approved"], counts["declined"], counts["unanswered"])
	if already > 0 {
		fmt.Fprintf(w, "; %d already approved", already)
	}
	fmt.Fprintf(w, " (allowlist: %s).\n", eng.Store.Path)
}

// approveReport is `approve --json`.
type approveReport struct {
	Config          string         `json:"config"`
	Allowlist       string         `json:"allowlist"`
	AlreadyApproved int            `json:"already_approved"`
	Hooks           []approvedHook `json:"hooks"`
}

type approvedHook struct {
	Event                 string  `json:"event"`
	Command               string  `json:"command"`
	ChangedSinceApproval  bool    `json:"changed_since_approval"`
	Result                string  `json:"result"`
	ApprovedAt            *string `json:"approved_at"`
	ScriptMtimeAtApproval *string `json:"script_mtime_at_approval"`
}

func approveReportOf(eng *engine.Engine, already int, pending []*pendingPair) approveReport {
	rep := approveReport{Config: eng.Paths.Config, Allowlist: eng.Store.Path, AlreadyApproved: already, Hooks: []approvedHook{}}
	for _, p := range pending {
		h := approvedHook{Event: p.Hook.Event, Command: p.Hook.Command, ChangedSinceApproval: p.Changed, Result: p.Result}
		if p.Result == "approved" {
			h.ApprovedAt = engine.JSONStored(p.Record.ApprovedAt)
			h.ScriptMtimeAtApproval = engine.JSONStored(p.Record.ScriptMtime)
		}
		rep.Hooks = append(rep.Hooks, h)
	}
	return rep
}
