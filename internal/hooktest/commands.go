package hooktest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/noora-hooks/noora-hooks/internal/compat"
	"github.com/noora-hooks/noora-hooks/internal/dispatch"
	"github.com/noora-hooks/noora-hooks/internal/engine"
	"github.com/noora-hooks/noora-hooks/protocol"
)

// checkStateKey finds a scenario's checkState in testscript's values.
type checkStateKey struct{}

// checkState is what the last `fire` of a scenario left for the assertions.
type checkState struct {
	fired  bool
	answer []byte // as exec (or exec --dialect) prints it, without the newline
	report dispatch.Report
}

func (h *checkHarness) commands() map[string]func(*testscript.TestScript, bool, []string) {
	return map[string]func(*testscript.TestScript, bool, []string){
		"fire":    h.fire,
		"answer":  cmdAnswer,
		"ran":     cmdRan,
		"skipped": cmdSkipped,
	}
}

func stateOf(ts *testscript.TestScript) *checkState {
	st, _ := ts.Value(checkStateKey{}).(*checkState)
	return st
}

// fire is `fire [VAR=value...] EVENT [PAYLOAD_FILE]` or `fire [VAR=value...]
// --dialect TOOL PAYLOAD_FILE`: it runs the hooks for real, as exec would,
// with every shell hook approved, and prints the answer.
func (h *checkHarness) fire(ts *testscript.TestScript, neg bool, args []string) {
	usage := "usage: fire [VAR=value...] EVENT [PAYLOAD_FILE] | fire [VAR=value...] --dialect claude|cursor|gemini|codex PAYLOAD_FILE"
	var vars []string
	for len(args) > 0 && strings.Contains(args[0], "=") && !strings.HasPrefix(args[0], "-") {
		vars, args = append(vars, args[0]), args[1:]
	}
	dialect := ""
	if len(args) > 0 && args[0] == "--dialect" {
		if len(args) != 3 {
			ts.Fatalf("%s", usage)
		}
		dialect, args = args[1], args[2:]
	} else if len(args) < 1 || len(args) > 2 {
		ts.Fatalf("%s", usage)
	}
	err := h.fireOnce(ts, vars, dialect, args)
	switch {
	case err != nil && !neg:
		ts.Fatalf("fire: %v", err)
	case err == nil && neg:
		ts.Fatalf("fire succeeded unexpectedly")
	}
}

func (h *checkHarness) fireOnce(ts *testscript.TestScript, vars []string, dialect string, args []string) error {
	work := ts.Getenv("WORK")
	opts := engine.Options{Home: h.paths.Home, Config: h.paths.Config}
	if _, err := os.Stat(filepath.Join(work, "config.yaml")); err == nil {
		// The scenario brings its config: its directory is the home.
		opts.Home, opts.Config = work, filepath.Join(work, "config.yaml")
	}
	var stderr bytes.Buffer
	environ := scriptEnviron(ts, vars)
	getenv := func(k string) string {
		for i := len(environ) - 1; i >= 0; i-- {
			if name, v, _ := strings.Cut(environ[i], "="); name == k {
				return v
			}
		}
		return ""
	}
	opts.Getenv, opts.Environ, opts.Now = getenv, func() []string { return environ }, time.Now
	opts.Warn = func(msg string) { fmt.Fprintf(&stderr, "noora-hooks: warning: %s\n", msg) }
	opts.PluginLog = func(plugin, line string) { fmt.Fprintf(&stderr, "noora-hooks: plugin %s: %s\n", plugin, line) }
	// Every shell hook counts as approved; nothing is recorded, no webhook
	// is sent: a test is not a firing of the agent's.
	opts.HookTest = true

	var in compat.Inbound
	var event protocol.Event
	var kw protocol.Kwargs
	mapped := true
	if dialect != "" {
		if _, ok := compat.Dialects()[dialect]; !ok {
			return fmt.Errorf("--dialect must be %s, %s, %s or %s, got %q", compat.Claude, compat.Cursor, compat.Gemini, compat.Codex, dialect)
		}
		file := ts.MkAbs(args[0])
		data, err := readFile(file)
		if err != nil {
			return err
		}
		if in, err = compat.Decode(dialect, data); err != nil {
			return fmt.Errorf("%s payload %s: %v", compat.ToolTitle(dialect), file, err)
		}
		event, mapped = protocol.Lookup(in.NooraEvent())
		kw = in.Kwargs
		opts.Origin = engine.Origin{Dialect: dialect, AgentEvent: in.Name}
	} else {
		var ok bool
		if event, ok = protocol.Lookup(args[0]); !ok {
			return unknownEvent(args[0])
		}
		if len(args) == 2 {
			var err error
			if kw, err = readKwargs(ts.MkAbs(args[1])); err != nil {
				return err
			}
		}
	}
	var report dispatch.Report
	if mapped {
		eng, err := engine.Load(opts)
		if err != nil {
			return err
		}
		defer eng.Close()
		// exec runs in the caller's directory, and a command line's
		// relative program is found from there: so does a scenario's, from
		// its current directory. Scenarios run one at a time.
		if prev, err := os.Getwd(); err == nil {
			if err := os.Chdir(ts.MkAbs(".")); err != nil {
				return fmt.Errorf("enter the scenario's directory: %w", err)
			}
			defer os.Chdir(prev)
		}
		report = eng.Fire(context.Background(), event, kw, ts.MkAbs("."))
	}
	var answer []byte
	if dialect != "" {
		out := compat.Encode(in, report.Combined)
		answer = out.Stdout
		report.Combined.Warnings = append(report.Combined.Warnings, out.Warnings...)
	} else {
		answer = report.AnswerJSON(false)
	}
	fmt.Fprint(ts.Stdout(), string(answer))
	for _, w := range report.Warnings() {
		fmt.Fprintf(ts.Stderr(), "noora-hooks: warning: %s\n", w)
	}
	fmt.Fprint(ts.Stderr(), stderr.String())
	st := stateOf(ts)
	st.fired, st.answer, st.report = true, bytes.TrimSpace(answer), report
	return nil
}

// scriptEnviron is the environment hooks get: the scenario's values of the
// variables of check's own environment and of testscript's, and vars.
func scriptEnviron(ts *testscript.TestScript, vars []string) []string {
	keys := map[string]bool{}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		keys[k] = true
	}
	for _, k := range []string{"WORK", "HOME", "TMPDIR", "PATH", "SCENARIO_DIR", "USER", "LANG", "SHELL"} {
		keys[k] = true
	}
	var out []string
	for k := range keys {
		if v := ts.Getenv(k); v != "" {
			out = append(out, k+"="+v)
		}
	}
	return append(out, vars...)
}

func lastFiring(ts *testscript.TestScript, cmd string) *checkState {
	st := stateOf(ts)
	if st == nil || !st.fired {
		ts.Fatalf("%s: no event was fired yet; use fire first", cmd)
	}
	return st
}

// cmdAnswer is `answer FIELD [VALUE]`: the last answer has FIELD (a dotted
// path), equal to VALUE when given (a string's text, or other JSON as text).
func cmdAnswer(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: answer FIELD [VALUE]")
	}
	st := lastFiring(ts, "answer")
	got, ok := jsonField(st.answer, args[0])
	match := ok && (len(args) == 1 || got == args[1])
	if match == !neg {
		return
	}
	switch {
	case neg && len(args) == 1:
		ts.Fatalf("answer has %s (%s), want none\nanswer: %s", args[0], got, st.answer)
	case neg:
		ts.Fatalf("answer %s is %q, want anything else\nanswer: %s", args[0], got, st.answer)
	case !ok:
		ts.Fatalf("answer has no %s\nanswer: %s", args[0], st.answer)
	default:
		ts.Fatalf("answer %s is %q, want %q\nanswer: %s", args[0], got, args[1], st.answer)
	}
}

// cmdRan is `ran SUBSTRING`: a hook whose name contains SUBSTRING ran.
func cmdRan(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: ran HOOK_SUBSTRING")
	}
	st := lastFiring(ts, "ran")
	var ran []string
	found := false
	for _, r := range st.report.Results {
		if r.Status == dispatch.StatusSkipped {
			continue
		}
		ran = append(ran, r.Source+" "+r.Name)
		found = found || strings.Contains(r.Name, args[0])
	}
	if found == !neg {
		return
	}
	if neg {
		ts.Fatalf("a hook matching %q ran; hooks that ran: %s", args[0], listOrNone(ran))
	}
	ts.Fatalf("no hook matching %q ran; hooks that ran: %s%s", args[0], listOrNone(ran), skipsText(st.report))
}

// cmdSkipped is `skipped SUBSTRING [REASON]`: a hook whose name contains
// SUBSTRING was considered and did not run (for REASON: matcher, dialect).
func cmdSkipped(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: skipped HOOK_SUBSTRING [REASON]")
	}
	st := lastFiring(ts, "skipped")
	found := false
	for _, s := range st.report.Skips {
		if strings.Contains(s.Hook.Name, args[0]) && (len(args) == 1 || string(s.Reason) == args[1]) {
			found = true
		}
	}
	if found == !neg {
		return
	}
	if neg {
		ts.Fatalf("a hook matching %q was skipped%s", args[0], skipsText(st.report))
	}
	ts.Fatalf("no hook matching %q was skipped%s", args[0], skipsText(st.report))
}

func skipsText(r dispatch.Report) string {
	if len(r.Skips) == 0 {
		return "; none was skipped"
	}
	var b strings.Builder
	b.WriteString("; skipped:")
	for _, s := range r.Skips {
		fmt.Fprintf(&b, "\n\t%s %s (%s): %s", s.Hook.Source, s.Hook.Name, s.Reason, s.Detail)
	}
	return b.String()
}

func listOrNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}
