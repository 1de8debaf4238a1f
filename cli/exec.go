package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/noora-hooks/noora-hooks/protocol"
	"github.com/noora-hooks/noora-hooks/runner"
)

// MaxPayload bounds the kwargs exec reads: large enough for a long
// conversation history, small enough that a runaway producer cannot exhaust memory.
const MaxPayload = 64 << 20

// ExecCmd is `noora-hooks exec <event>`, and `exec --dialect claude|cursor`
// (SPEC §11), where the event comes from the payload.
type ExecCmd struct {
	Event       string `arg:"" optional:"" help:"The event to fire, e.g. pre_tool_call. Not with --dialect: the payload names it." predictor:"event"`
	PayloadFile string `help:"Read the kwargs from FILE instead of stdin." placeholder:"FILE" type:"path"`
	Trace       bool   `help:"Add \"hooks\": what every hook considered did (source, command, status, exit code, duration, answer). With --dialect the trace goes to stderr."`
	Dialect     string `help:"Be the one hook of Claude Code (claude) or Cursor (cursor): read that tool's payload, fire the Noora event it maps to, answer in that tool's format." placeholder:"TOOL"`
	Detach      bool   `help:"Observer events only: print {\"event\": ...} at once and run the hooks in a detached process, which logs to <home>/logs/exec.log. For hosts that do not run serve and must not wait."`
	Detached    bool   `hidden:"" help:"Set by --detach on the detached process it starts: print no answer, stamp log lines with the time."`
}

// Run fires the event and prints the combined answer (SPEC §8).
func (c *ExecCmd) Run(g *Globals, env *Env) error {
	if c.Detach && c.Dialect != "" {
		return usageError("--detach cannot be used with --dialect: Claude Code and Cursor wait for the answer of the hook they call")
	}
	if c.Dialect != "" {
		return c.bridge(g, env)
	}
	if c.Event == "" {
		return usageError("exec needs an event, e.g. noora-hooks exec pre_tool_call (or --dialect claude|cursor to take it from the payload)")
	}
	event, ok := protocol.Lookup(c.Event)
	if !ok {
		return unknownEvent(c.Event)
	}
	if c.Detach {
		return c.detach(g, env, event)
	}
	if c.Detached {
		env = detachedEnv(env, "exec "+event.Name)
		defer env.Stderr.(*stampWriter).Flush()
	}
	kw, err := readKwargs(c.PayloadFile, env.Stdin)
	if err != nil {
		return err
	}
	eng, err := LoadEngine(g, env)
	if err != nil {
		return err
	}
	defer eng.Close()
	cwd, err := Cwd()
	if err != nil {
		return err
	}
	if eng.Filtered(event, kw) {
		return printAnswer(env.Stdout, runner.Report{Combined: protocol.Combine(event.Name, kw, nil)}, c.Trace)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	report := eng.Dispatcher().Fire(ctx, runner.Call{
		Event:  event,
		Kwargs: protocol.WithTelemetry(kw),
		Cwd:    cwd,
		Home:   eng.Paths.Home,
		Env:    env.Environ(),
	})
	for _, w := range report.Warnings() {
		env.Warnf("%s", w)
	}
	return printAnswer(env.Stdout, report, c.Trace)
}

func printAnswer(w io.Writer, report runner.Report, trace bool) error {
	out := report.Combined.Object()
	if trace {
		results := report.Results
		if results == nil {
			results = []runner.Result{}
		}
		out = append(out, protocol.Field{Key: "hooks", Value: protocol.Raw(results)})
	}
	b, _ := out.MarshalJSON()
	_, err := w.Write(append(b, '\n'))
	return err
}

// readKwargs reads the event's kwargs: a JSON object, from file or stdin.
// Empty input means no kwargs.
func readKwargs(file string, stdin io.Reader) (protocol.Kwargs, error) {
	src, name := stdin, "stdin"
	if file != "" {
		f, err := os.Open(file)
		if err != nil {
			return nil, fmt.Errorf("read payload: %w", err)
		}
		defer f.Close()
		src, name = f, file
	}
	data, err := io.ReadAll(io.LimitReader(src, MaxPayload+1))
	if err != nil {
		return nil, fmt.Errorf("read payload from %s: %w", name, err)
	}
	if len(data) > MaxPayload {
		return nil, fmt.Errorf("read payload from %s: larger than %d MiB", name, MaxPayload>>20)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return protocol.Kwargs{}, nil
	}
	kw, err := protocol.ParseObject(data)
	if err != nil {
		hint := "the payload must be the event's keyword arguments as one JSON object, e.g. {\"tool_name\": \"terminal\", \"args\": {\"command\": \"ls\"}}"
		if errors.Is(err, protocol.ErrNotObject) {
			return nil, fmt.Errorf("payload from %s is %v; %s", name, err, hint)
		}
		return nil, fmt.Errorf("payload from %s: %v; %s", name, err, hint)
	}
	return kw, nil
}
