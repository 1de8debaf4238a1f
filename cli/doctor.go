package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/noora-hooks/noora-hooks/internal/dispatch"
	"github.com/noora-hooks/noora-hooks/internal/engine"
	"github.com/noora-hooks/noora-hooks/internal/paths"
	"github.com/noora-hooks/noora-hooks/internal/runner"
	"github.com/noora-hooks/noora-hooks/internal/shellhook"

	"github.com/google/shlex"

	"github.com/noora-hooks/noora-hooks/internal/config"
	"github.com/noora-hooks/noora-hooks/internal/consent"
	"github.com/noora-hooks/noora-hooks/protocol"
)

// DoctorCmd is `noora-hooks doctor`.
type DoctorCmd struct {
	JSON bool `help:"Print the report as JSON (shape: docs/cli.md)." name:"json"`
}

// Help is the long help of `doctor`.
func (DoctorCmd) Help() string {
	return `For every configured shell hook, one line per check:
  program   it exists and is executable; after an interpreter
            ("python3 x.py") the script only has to be readable
  approved  its (event, command) pair is in the allowlist
  drift     its script did not change since it was approved
  run       approved hooks only: a run on the event's synthetic payload
            exits 0 (2, a block, on pre_tool_call) with empty stdout or
            valid JSON within its timeout; never in safe mode
Config warnings and a broken allowlist count as issues too. Exit 1 when there is any issue.`
}

// Check verdicts.
const (
	checkOK      = "ok"
	checkIssue   = "issue"
	checkSkipped = "skipped"
)

// check is one verdict on one hook.
type check struct {
	Name    string `json:"name"`
	Status  string `json:"status"`
	Message string `json:"message"`
	// ElapsedMS is how long the trial run took; only on the run check of a
	// hook that ran.
	ElapsedMS *int64 `json:"elapsed_ms,omitempty"`
}

// diagnosis is every check of one configured hook.
type diagnosis struct {
	Event   string  `json:"event"`
	Command string  `json:"command"`
	Matcher *string `json:"matcher"`
	Line    int     `json:"line"`
	Checks  []check `json:"checks"`
}

// doctorReport is `doctor --json`.
type doctorReport struct {
	Config       string      `json:"config"`
	SafeMode     bool        `json:"safe_mode"`
	ConfigIssues []string    `json:"config_issues"`
	Hooks        []diagnosis `json:"hooks"`
	Issues       int         `json:"issues"`
	// Notes are plugins and gateway hooks that need the agent's process
	// (doctor_agent.go); they are not issues.
	Notes []string `json:"notes"`
}

// Run checks every configured shell hook (SPEC §6) and exits 1 on any issue.
func (c *DoctorCmd) Run(g *Globals, env *Env) error {
	rep := doctorReport{ConfigIssues: []string{}, Hooks: []diagnosis{}}
	// What loading warns about (config entries, a broken allowlist) is an
	// issue of the report, not only a line on stderr.
	capture := *env
	capture.Warn = func(msg string) { rep.ConfigIssues = append(rep.ConfigIssues, msg) }
	capture.reportUnsafe = true
	eng, err := loadManaged(g, &capture)
	if err != nil {
		return err
	}
	checkTokenFile(&capture)
	rep.Config, rep.SafeMode = eng.Paths.Config, eng.SafeMode
	rep.Notes = agentProcessNotes(eng.Paths.Home)
	if eng.SafeMode {
		env.Warnf("%s", safeModeNote)
	}
	cwd, err := Cwd()
	if err != nil {
		return err
	}
	ctx, stop := signalContext()
	defer stop()

	// The checks that need no run first; then the trial runs, concurrently
	// as exec would run hooks, each writing only its own verdict.
	var trials []int
	for _, h := range eng.Config.ShellHooks {
		d, run := diagnose(eng, h, env.Environ())
		if run {
			trials = append(trials, len(rep.Hooks))
		}
		rep.Hooks = append(rep.Hooks, d)
	}
	tried := make([]config.ShellHook, len(trials))
	for i, h := range trials {
		tried[i] = eng.Config.ShellHooks[h]
	}
	for i, r := range eng.TryEach(ctx, tried, cwd) {
		d := &rep.Hooks[trials[i]]
		d.Checks[len(d.Checks)-1] = verdictOf(tried[i], r)
	}
	rep.count()
	if c.JSON {
		if err := writeJSON(env.Stdout, rep); err != nil {
			return err
		}
	} else {
		printDoctor(printableWriter{env.Stdout}, rep)
	}
	if rep.Issues > 0 {
		return &exitError{code: 1, err: errReported}
	}
	return nil
}

// checkProgram: the program exists and is executable; after an interpreter
// (python3 x.py, bash x.sh) the script only has to be readable.
func checkProgram(h config.ShellHook, environ []string) check {
	ch := check{Name: "program", Status: checkIssue}
	if h.URL != "" {
		return check{Name: "program", Status: checkSkipped, Message: "a URL hook runs no program"}
	}
	argv, err := shellhook.Argv(h.Command)
	if err != nil {
		ch.Message = err.Error()
		return ch
	}
	path, err := runner.LookPath(argv[0], environ)
	if err == nil {
		err = runner.ShebangProblem(path, environ)
	}
	switch {
	case errors.Is(err, runner.ErrInterpreter):
		ch.Message = err.Error()
		return ch
	case errors.Is(err, runner.ErrNotFound):
		ch.Message = fmt.Sprintf("%s not found", argv[0])
		if strings.Contains(argv[0], "/") && !strings.HasPrefix(argv[0], "/") {
			ch.Message += " (a relative path is resolved from the directory the agent runs in)"
		} else if !strings.Contains(argv[0], "/") {
			ch.Message += " in PATH"
		}
		return ch
	case errors.Is(err, runner.ErrNotExecutable):
		ch.Message = fmt.Sprintf("%s is not executable: chmod +x it, or run it through its interpreter (e.g. \"bash %s\")", argv[0], argv[0])
		return ch
	case err != nil:
		ch.Message = err.Error()
		return ch
	}
	tokens, _ := shlex.Split(h.Command)
	script := consent.Script(h.Command, shlex.Split)
	if len(tokens) == 0 || script == tokens[0] {
		ch.Status, ch.Message = checkOK, fmt.Sprintf("%s is executable", argv[0])
		return ch
	}
	// An interpreter runs the script: reading it is enough.
	f, err := os.Open(paths.ExpandTilde(script))
	switch {
	case errors.Is(err, os.ErrNotExist):
		ch.Message = fmt.Sprintf("%s runs %s, which does not exist", argv[0], script)
		return ch
	case err != nil:
		ch.Message = fmt.Sprintf("%s runs %s, which cannot be read: %v", argv[0], script, errors.Unwrap(err))
		return ch
	}
	f.Close()
	ch.Status, ch.Message = checkOK, fmt.Sprintf("%s runs %s (readable)", argv[0], script)
	return ch
}

func checkApproval(eng *engine.Engine, s engine.HookState) check {
	ch := check{Name: "approved", Status: checkOK}
	switch {
	case s.Approved:
		if t, ok := engine.StoredTime(s.Approval.ApprovedAt); ok {
			ch.Message = "approved on " + textTime(t)
		} else {
			ch.Message = "approved (allowlisted by hand, no date)"
		}
	case eng.Accept:
		ch.Message = "not approved yet, but auto-accept is on: it is approved and recorded when it first runs"
	default:
		ch.Status = checkIssue
		ch.Message = `not approved: exec skips it; run "noora-hooks approve"`
	}
	return ch
}

func checkDrift(s engine.HookState) check {
	ch := check{Name: "drift", Status: checkOK}
	switch {
	case !s.Approved:
		ch.Status, ch.Message = checkSkipped, "not approved, nothing to compare"
	case s.Approval.ScriptMtime == "":
		ch.Message = "no script time was recorded at approval (allowlisted by hand): cannot tell"
	case s.Mtime.IsZero():
		ch.Status, ch.Message = checkSkipped, fmt.Sprintf("%s not found, nothing to compare", s.Script)
	case s.Drift:
		ch.Status, ch.Message = checkIssue, driftText(s)
	case s.Approval.ScriptSHA256 == "":
		ch.Message = fmt.Sprintf("%s not modified since approval (an older approval: only its mtime is compared; approving the pair again binds it to the file and its content)", s.Script)
	default:
		ch.Message = fmt.Sprintf("%s unchanged since approval", s.Script)
	}
	return ch
}

// diagnose makes the checks of h that need no run, and a "run" check to be
// filled by the trial run when run is true.
func diagnose(eng *engine.Engine, h config.ShellHook, environ []string) (d diagnosis, run bool) {
	s := eng.StateOf(h)
	d = diagnosis{Event: h.Event, Command: h.Command, Line: h.Line}
	if h.Matcher != nil {
		d.Matcher = &h.Matcher.Source
	}
	program := checkProgram(h, environ)
	if p := config.CheckWritable("hook script", s.Binding.Path); program.Status == checkOK && s.Binding.Path != "" && p != nil {
		if p.Refused {
			program.Status, program.Message = checkIssue, p.Error()
		} else {
			program.Message += "; warning: " + p.Error()
		}
	}
	d.Checks = append(d.Checks, program, checkApproval(eng, s), checkDrift(s))
	switch {
	case eng.SafeMode:
		d.Checks = append(d.Checks, check{Name: "run", Status: checkSkipped, Message: engine.SafeModeNotRun})
	case !s.Approved && !eng.Accept:
		d.Checks = append(d.Checks, check{Name: "run", Status: checkSkipped, Message: "not run: doctor runs only approved hooks"})
	case program.Status != checkOK && h.URL == "":
		d.Checks = append(d.Checks, check{Name: "run", Status: checkSkipped, Message: "not run: its program cannot start"})
	default:
		d.Checks = append(d.Checks, check{Name: "run"})
		return d, true
	}
	return d, false
}

// count sets Issues: the config's, and every check that is an issue.
func (rep *doctorReport) count() {
	rep.Issues = len(rep.ConfigIssues)
	for _, d := range rep.Hooks {
		for _, ch := range d.Checks {
			if ch.Status == checkIssue {
				rep.Issues++
			}
		}
	}
}

// verdictOf is the check of a hook's trial run on its event's synthetic
// payload: it must give empty stdout or valid JSON within its timeout, and
// exit 0 (or 2, a block, on pre_tool_call).
func verdictOf(h config.ShellHook, r dispatch.Result) check {
	ms := r.Duration.Milliseconds()
	ch := check{Name: "run", Status: checkOK, ElapsedMS: &ms}
	problems := ownWarnings(r)
	if r.Status != dispatch.StatusOK && len(problems) == 0 {
		problems = append(problems, string(r.Status))
	}
	if len(problems) > 0 {
		ch.Status = checkIssue
		ch.Message = oneLine(strings.Join(problems, "; "))
		return ch
	}
	out := "empty stdout"
	if strings.TrimSpace(string(r.Outcome.Stdout)) != "" {
		out = "valid JSON on stdout"
	}
	ch.Message = fmt.Sprintf("exit %d in %dms, %s", r.Outcome.Code, ms, out)
	if r.Answer.Kind != protocol.None {
		answer, _ := r.Answer.MarshalJSON()
		ch.Message += fmt.Sprintf(", answer %s", answer)
	}
	return ch
}

// oneLine keeps a verdict on one line: hook output may span many.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.ReplaceAll(s, "\n", `\n`)
}

func printDoctor(w io.Writer, rep doctorReport) {
	fmt.Fprintf(w, "Config: %s\n", rep.Config)
	for _, issue := range rep.ConfigIssues {
		fmt.Fprintf(w, "  %-7s %s\n", "ISSUE", issue)
	}
	for _, note := range rep.Notes {
		fmt.Fprintf(w, "  %-7s %s\n", "NOTE", note)
	}
	if len(rep.Hooks) == 0 {
		fmt.Fprintf(w, "\nNo shell hooks are configured: nothing to check.\n")
	}
	for _, d := range rep.Hooks {
		fmt.Fprintf(w, "\n%s: %s", d.Event, d.Command)
		if d.Matcher != nil {
			fmt.Fprintf(w, " (matcher %s)", *d.Matcher)
		}
		fmt.Fprintln(w)
		for _, ch := range d.Checks {
			label := ch.Status
			if ch.Status == checkIssue {
				label = "ISSUE"
			}
			fmt.Fprintf(w, "  %-7s %-9s %s\n", label, ch.Name, ch.Message)
		}
	}
	fmt.Fprintln(w)
	switch {
	case rep.Issues == 0:
		fmt.Fprintf(w, "%s checked: no issues.\n", plural(len(rep.Hooks), "hook", "hooks"))
	default:
		fmt.Fprintf(w, "%s checked: %s.\n", plural(len(rep.Hooks), "hook", "hooks"), plural(rep.Issues, "issue", "issues"))
	}
}
