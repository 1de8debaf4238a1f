package cli

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/noora-hooks/noora-hooks/protocol"
)

// ExecCmd is `noora-hooks exec <event>`, and `exec --dialect claude|cursor|gemini|codex`
// (SPEC §11), where the event comes from the payload.
type ExecCmd struct {
	Event       string `arg:"" optional:"" help:"The event to fire, e.g. pre_tool_call. Not with --dialect: the payload names it." predictor:"event"`
	PayloadFile string `help:"Read the kwargs from FILE instead of stdin." placeholder:"FILE" type:"path"`
	Trace       bool   `help:"Add \"hooks\": what every hook considered did (source, command, status, exit code, duration, answer). With --dialect the trace goes to stderr."`
	Dialect     string `help:"Be the one hook of Claude Code (claude), Cursor (cursor), Gemini CLI (gemini) or Codex CLI (codex): read that tool's payload, fire the Noora event it maps to, answer in that tool's format." placeholder:"TOOL"`
	Server      bool   `help:"Fire through a running \"noora-hooks serve\" ($NOORA_HOOKS_SERVER, else unix:<home>/noora-hooks.sock); when none answers, fire in-process with a warning. Setting NOORA_HOOKS_SERVER alone does the same without the warning."`
	Detach      bool   `help:"Observer events only: print {\"event\": ...} at once and run the hooks in a detached process, which logs to <home>/logs/exec.log. For hosts that do not run serve and must not wait."`
	Detached    bool   `hidden:"" help:"Set by --detach on the detached process it starts: print no answer, stamp log lines with the time."`
}

// Run fires the event and prints the combined answer (SPEC §8).
func (c *ExecCmd) Run(g *Globals, env *Env) error {
	if c.Detach && c.Dialect != "" {
		return usageError("--detach cannot be used with --dialect: the agents that call it wait for its answer")
	}
	if c.Dialect != "" {
		return c.bridge(g, env)
	}
	if c.Event == "" {
		return usageError("exec needs an event, e.g. noora-hooks exec pre_tool_call (or --dialect claude|cursor|gemini|codex to take it from the payload)")
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
	cwd, err := Cwd()
	if err != nil {
		return err
	}
	intr := catchInterrupt()
	defer intr.stop()
	ctx := intr.ctx
	if done, err := c.fireViaServer(ctx, g, env, event, kw, cwd); done {
		return err
	}
	if sig := intr.caught(); sig != nil {
		// Interrupted while serve ran the event: its answer is lost, and
		// firing again in-process would run the hooks a second time. A
		// fail_closed gate that applies answers as a failed gate would.
		return c.lostToInterrupt(g, env, event, kw, sig)
	}
	eng, err := loadEngine(g, env)
	if err != nil {
		return err
	}
	defer eng.Close()
	report := eng.Fire(ctx, event, kw, cwd)
	for _, w := range report.Warnings() {
		env.Warnf("%s", w)
	}
	if sig := intr.caught(); sig != nil && !gateClosed(report.Combined) {
		return interrupted(sig)
	}
	if w := protocol.UnreadContext(report.Combined); w != "" {
		env.Warnf("%s", w)
	}
	_, err = env.Stdout.Write(report.AnswerJSON(c.Trace))
	return err
}

// readKwargs reads the event's kwargs: a JSON object, from file or stdin.
// Empty input means no kwargs.
func readKwargs(file string, stdin io.Reader) (protocol.Kwargs, error) {
	data, name, err := readInput("payload", file, stdin, MaxPayload)
	if err != nil {
		return nil, err
	}
	kw, err := protocol.ParseKwargs(data)
	if err != nil {
		if errors.Is(err, protocol.ErrNotObject) {
			return nil, fmt.Errorf("payload from %s is %v; %s", name, err, protocol.KwargsHint)
		}
		return nil, fmt.Errorf("payload from %s: %v; %s", name, err, protocol.KwargsHint)
	}
	return kw, nil
}

// lostToInterrupt answers an event whose answer from serve a signal cut off:
// the block of a failed gate when a fail_closed hook applies to the call
// (SPEC §4: an interrupted gate never reads as "go ahead"), else no answer
// and exit 128+signal.
func (c *ExecCmd) lostToInterrupt(g *Globals, env *Env, event protocol.Event, kw protocol.Kwargs, sig os.Signal) error {
	eng, err := loadEngine(g, env)
	if err != nil {
		return interrupted(sig)
	}
	defer eng.Close()
	gate, ok := eng.Gate(event, kw)
	if !ok {
		return interrupted(sig)
	}
	answer := protocol.Combined{Event: event.Name, Answer: protocol.Object{
		{Key: "action", Value: protocol.String("block")},
		{Key: "message", Value: protocol.String("hook " + gate.Command + " failed closed: interrupted")},
	}}
	b, _ := answer.MarshalJSON()
	_, err = env.Stdout.Write(append(b, '\n'))
	return err
}
