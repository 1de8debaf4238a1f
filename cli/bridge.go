package cli

import (
	"fmt"
	"io"
	"os"

	"github.com/noora-hooks/noora-hooks/compat"
	"github.com/noora-hooks/noora-hooks/protocol"
	"github.com/noora-hooks/noora-hooks/runner"
)

// bridge is `exec --dialect`: noora-hooks as the one hook Claude Code or
// Cursor calls (SPEC §11). It reads the tool's payload, fires the Noora event
// it maps to and answers in the tool's format. Whatever goes wrong on our
// side exits 1, which both tools treat as a failed hook that blocks nothing;
// an event Noora has no counterpart for is answered neutrally (exit 0).
func (c *ExecCmd) bridge(g *Globals, env *Env) error {
	if c.Dialect != compat.Claude && c.Dialect != compat.Cursor {
		return usageError("--dialect must be %s or %s, got %q", compat.Claude, compat.Cursor, c.Dialect)
	}
	if c.Event != "" {
		return usageError("exec --dialect %s takes no event: it comes from the payload's hook_event_name (got %q)", c.Dialect, c.Event)
	}
	data, name, err := readPayload(c.PayloadFile, env.Stdin)
	if err != nil {
		return err
	}
	in, err := compat.Decode(c.Dialect, data)
	if err != nil {
		return fmt.Errorf("%s payload from %s: %v; expected the JSON object %s hands its hooks", compat.ToolTitle(c.Dialect), name, err, compat.ToolTitle(c.Dialect))
	}
	var report runner.Report
	if ev, ok := protocol.Lookup(in.NooraEvent()); ok {
		eng, err := LoadEngine(g, env)
		if err != nil {
			return err
		}
		defer eng.Close()
		cwd, err := Cwd()
		if err != nil {
			return err
		}
		intr := catchInterrupt()
		defer intr.stop()
		report = eng.Fire(intr.ctx, ev, in.Kwargs, cwd)
		for _, w := range report.Warnings() {
			env.Warnf("%s", w)
		}
		if c.Trace {
			if _, err := env.Stderr.Write(report.AnswerJSON(true)); err != nil {
				return err
			}
		}
		// Interrupted: the tool's blocking answer when the gate closed,
		// else no answer and 128+signal, never the neutral answer that
		// Claude Code and Cursor read as "go ahead".
		if sig := intr.caught(); sig != nil && !gateClosed(report.Combined) {
			return interrupted(sig)
		}
	}
	out := compat.Encode(in, report.Combined)
	for _, w := range out.Warnings {
		env.Warnf("%s", w)
	}
	_, err = env.Stdout.Write(out.Stdout)
	return err
}

// readPayload reads the tool's payload, bounded like exec's kwargs.
func readPayload(file string, stdin io.Reader) ([]byte, string, error) {
	src, name := stdin, "stdin"
	if file != "" {
		f, err := os.Open(file)
		if err != nil {
			return nil, file, fmt.Errorf("read payload: %w", err)
		}
		defer f.Close()
		src, name = f, file
	}
	data, err := io.ReadAll(io.LimitReader(src, MaxPayload+1))
	if err != nil {
		return nil, name, fmt.Errorf("read payload from %s: %w", name, err)
	}
	if len(data) > MaxPayload {
		return nil, name, fmt.Errorf("read payload from %s: larger than %d MiB", name, MaxPayload>>20)
	}
	return data, name, nil
}
