package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/noora-hooks/noora-hooks/internal/dispatch"
	"github.com/noora-hooks/noora-hooks/internal/engine"
	"github.com/noora-hooks/noora-hooks/internal/runner"
	"github.com/noora-hooks/noora-hooks/internal/shellhook"

	"github.com/noora-hooks/noora-hooks/internal/config"
	"github.com/noora-hooks/noora-hooks/protocol"
)

// TestCmd is `noora-hooks test <event>`.
type TestCmd struct {
	Event       string `arg:"" help:"The event to fire, e.g. pre_tool_call." predictor:"event"`
	ForTool     string `help:"Set tool_name to TOOL and run only the hooks whose matcher accepts it (without it, every hook of the event runs, whatever its matcher)." placeholder:"TOOL"`
	PayloadFile string `help:"Merge the kwargs in FILE (a JSON object) over the synthetic payload." placeholder:"FILE" type:"path"`
	JSON        bool   `help:"Print the report as JSON (shape: docs/cli.md)." name:"json"`
}

// Help is the long help of `test`.
func (TestCmd) Help() string {
	return `The payload is a realistic one for the event (tool events call the terminal tool with "echo hello"; ids start with "test-"), with the kwargs of --payload-file laid over it. Every shell hook of the event runs, approved or not: they run for real, with your credentials, so test only hooks you have read. For each hook the report shows how it ended, how long it took, the first 400 characters of its stdout and stderr, and its parsed answer; then the combined answer that exec would print. Exit 0 whatever the hooks did.`
}

// Run fires the event's shell hooks, approved or not, on the synthetic payload.
func (c *TestCmd) Run(g *Globals, env *Env) error {
	event, ok := protocol.Lookup(c.Event)
	if !ok {
		return unknownEvent(c.Event)
	}
	kw, _ := protocol.Synthetic(event.Name)
	if c.PayloadFile != "" {
		file, err := readKwargs(c.PayloadFile, nil)
		if err != nil {
			return err
		}
		kw = protocol.Merge(kw, file)
	}
	eng, err := loadManaged(g, env)
	if err != nil {
		return err
	}
	if eng.SafeMode {
		env.Warnf("%s", safeModeNote)
	}
	cwd, err := Cwd()
	if err != nil {
		return err
	}
	ctx, stop := signalContext()
	defer stop()
	t := eng.Trial(ctx, event, kw, c.ForTool, cwd)
	if c.JSON {
		return writeJSON(env.Stdout, testReportOf(c, eng, t.Payload, t.States, t.Results, t.Unmatched, t.Combined))
	}
	printTrial(printableWriter{env.Stdout}, eng, t, c.ForTool)
	return nil
}

// printTrial is the text report of `test`.
func printTrial(w io.Writer, eng *engine.Engine, t engine.Trial, forTool string) {
	fmt.Fprintf(w, "Event:   %s\n", t.Event.Name)
	b, _ := t.Payload.MarshalJSON()
	fmt.Fprintf(w, "Payload: %s\n", b)
	for _, h := range t.Unmatched {
		fmt.Fprintf(w, "\nNot run: %s (matcher %s does not accept tool %q)\n", h.Command, h.Matcher.Source, forTool)
	}
	if len(t.Results) == 0 {
		fmt.Fprintf(w, "\n%s\n", noHookToTest(eng, t.Event.Name, forTool, len(t.Unmatched)))
		return
	}
	unapproved := 0
	for i, r := range t.Results {
		s := t.States[i]
		if !s.Approved {
			unapproved++
		}
		fmt.Fprintf(w, "\n[%d/%d] %s\n", i+1, len(t.Results), s.Hook.Command)
		printHookRun(w, s, r)
	}
	fmt.Fprintf(w, "\nCombined answer (as exec prints it")
	if unapproved > 0 {
		fmt.Fprintf(w, " once every hook above is approved; not approved yet: %d of %d", unapproved, len(t.Results))
	}
	cb, _ := t.Combined.MarshalJSON()
	fmt.Fprintf(w, "):\n%s\n", cb)
	for _, warning := range t.Combined.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warning)
	}
}

func noHookToTest(eng *engine.Engine, event, tool string, unmatched int) string {
	switch {
	case event == protocol.TransformAPIErrorClassification:
		return event + " cannot be a shell hook (plugins only): there is nothing to test."
	case unmatched > 0:
		return fmt.Sprintf("No shell hook of %s accepts tool %q: nothing ran.", event, tool)
	}
	return fmt.Sprintf("No shell hook is configured for %s in %s: nothing ran.", event, eng.Paths.Config)
}

// printHookRun prints what one hook did: status, output excerpts, answer.
func printHookRun(w io.Writer, s engine.HookState, r dispatch.Result) {
	h := s.Hook
	if h.Matcher != nil {
		fmt.Fprintf(w, "  matcher:  %s\n", h.Matcher.Source)
	}
	approved := "yes"
	if !s.Approved {
		approved = "no (exec skips it until it is approved)"
	}
	fmt.Fprintf(w, "  approved: %s\n", approved)
	fmt.Fprintf(w, "  result:   %s\n", runSummary(h, r))
	if r.Outcome != nil && r.Outcome.End != runner.StartFailed {
		fmt.Fprintf(w, "  stdout:   %s\n", indentExcerpt(r.Outcome.Stdout, r.Outcome.StdoutTruncated))
		fmt.Fprintf(w, "  stderr:   %s\n", indentExcerpt(r.Outcome.Stderr, r.Outcome.StderrTruncated))
	}
	answer, _ := r.Answer.MarshalJSON()
	fmt.Fprintf(w, "  answer:   %s\n", answer)
	for _, warning := range ownWarnings(r) {
		fmt.Fprintf(w, "  warning:  %s\n", warning)
	}
}

// ownWarnings are a hook's warnings without the name of the hook: a report
// shows them under its name already.
func ownWarnings(r dispatch.Result) []string {
	out := make([]string, len(r.Warnings))
	for i, w := range r.Warnings {
		out[i] = w.Message
	}
	return out
}

// runSummary is one line: how the run ended and how long it took.
func runSummary(h config.ShellHook, r dispatch.Result) string {
	switch {
	case r.Outcome == nil:
		return "did not start"
	case r.Outcome.End == runner.StartFailed:
		return "did not start: " + r.Outcome.Err.Error()
	case r.Outcome.End == runner.TimedOut:
		return fmt.Sprintf("timed out after %s (its process group was killed); elapsed %s", seconds(h.Timeout), elapsed(r))
	case r.Outcome.Signal != 0:
		return fmt.Sprintf("killed by %s; elapsed %s", r.Outcome.Signal, elapsed(r))
	}
	return fmt.Sprintf("exit %d; elapsed %s", r.Outcome.Code, elapsed(r))
}

func elapsed(r dispatch.Result) string {
	return fmt.Sprintf("%dms", r.Duration.Milliseconds())
}

// outputLimit is how much of a hook's stdout and stderr `test` shows: the
// 400 characters that warnings and block messages quote (SPEC §4, §6).
const outputLimit = shellhook.MessageLimit

// excerpt returns the first 400 characters of out and whether there was more.
func excerpt(out []byte, truncated bool) (string, bool) {
	s := strings.ToValidUTF8(string(out), "\uFFFD")
	cut := shellhook.Excerpt(s)
	return cut, truncated || len(cut) < len(s)
}

// indentExcerpt shows an excerpt on the lines after a "  stdout:   " label.
func indentExcerpt(out []byte, truncated bool) string {
	s, more := excerpt(out, truncated)
	if s == "" && !more {
		return "(empty)"
	}
	s = strings.TrimRight(s, "\n")
	s = strings.ReplaceAll(s, "\n", "\n            ")
	if more {
		s += fmt.Sprintf(" [... cut after %d characters]", outputLimit)
	}
	return s
}

// testReport is `test --json`.
type testReport struct {
	Event      string           `json:"event"`
	ForTool    *string          `json:"for_tool"`
	Payload    protocol.Object  `json:"payload"`
	Hooks      []testedHook     `json:"hooks"`
	NotMatched []notMatchedHook `json:"not_matched"`
	Combined   protocol.Object  `json:"combined"`
	Warnings   []string         `json:"warnings"`
}

type testedHook struct {
	Command         string          `json:"command"`
	Matcher         *string         `json:"matcher"`
	Approved        bool            `json:"approved"`
	Status          dispatch.Status `json:"status"`
	ExitCode        *int            `json:"exit_code"`
	ElapsedMS       int64           `json:"elapsed_ms"`
	Stdout          string          `json:"stdout"`
	StdoutTruncated bool            `json:"stdout_truncated"`
	Stderr          string          `json:"stderr"`
	StderrTruncated bool            `json:"stderr_truncated"`
	Answer          json.RawMessage `json:"answer"`
	Warnings        []string        `json:"warnings"`
}

type notMatchedHook struct {
	Command string `json:"command"`
	Matcher string `json:"matcher"`
}

func testReportOf(c *TestCmd, eng *engine.Engine, payload protocol.Object, states []engine.HookState, results []dispatch.Result, unmatched []config.ShellHook, combined protocol.Combined) testReport {
	rep := testReport{
		Event: c.Event, Payload: payload, Hooks: []testedHook{}, NotMatched: []notMatchedHook{},
		Combined: combined.Object(), Warnings: combined.Warnings,
	}
	if rep.Warnings == nil {
		rep.Warnings = []string{}
	}
	if c.ForTool != "" {
		rep.ForTool = &c.ForTool
	}
	for i, r := range results {
		h := states[i].Hook
		answer, _ := r.Answer.MarshalJSON()
		t := testedHook{
			Command: h.Command, Approved: states[i].Approved, Status: r.Status, ExitCode: r.ExitCode,
			ElapsedMS: r.Duration.Milliseconds(), Answer: answer, Warnings: ownWarnings(r),
		}
		if h.Matcher != nil {
			t.Matcher = &h.Matcher.Source
		}
		if r.Outcome != nil {
			t.Stdout, t.StdoutTruncated = excerpt(r.Outcome.Stdout, r.Outcome.StdoutTruncated)
			t.Stderr, t.StderrTruncated = excerpt(r.Outcome.Stderr, r.Outcome.StderrTruncated)
		}
		rep.Hooks = append(rep.Hooks, t)
	}
	for _, h := range unmatched {
		rep.NotMatched = append(rep.NotMatched, notMatchedHook{Command: h.Command, Matcher: h.Matcher.Source})
	}
	return rep
}
