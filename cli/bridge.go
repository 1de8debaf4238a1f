package cli

import (
	"fmt"

	"github.com/noora-hooks/noora-hooks/internal/dispatch"

	"github.com/noora-hooks/noora-hooks/internal/compat"
	"github.com/noora-hooks/noora-hooks/protocol"
)

// bridge is `exec --dialect`: noora-hooks as the one hook Claude Code or
// Cursor calls (SPEC §11). It reads the tool's payload, fires the Noora event
// it maps to and answers in the tool's format. Whatever goes wrong on our
// side exits 1, which both tools treat as a failed hook that blocks nothing;
// an event Noora has no counterpart for is answered neutrally (exit 0).
func (c *ExecCmd) bridge(g *Globals, env *Env) error {
	if _, ok := compat.Dialects()[c.Dialect]; !ok {
		return usageError("--dialect must be %s, %s, %s or %s, got %q", compat.Claude, compat.Cursor, compat.Gemini, compat.Codex, c.Dialect)
	}
	if c.Event != "" {
		return usageError("exec --dialect %s takes no event: it comes from the payload's hook_event_name (got %q)", c.Dialect, c.Event)
	}
	data, name, err := readInput("payload", c.PayloadFile, env.Stdin, MaxPayload)
	if err != nil {
		return err
	}
	in, err := compat.Decode(c.Dialect, data)
	if err != nil {
		return fmt.Errorf("%s payload from %s: %v; expected the JSON object %s hands its hooks", compat.ToolTitle(c.Dialect), name, err, compat.ToolTitle(c.Dialect))
	}
	var report dispatch.Report
	if ev, ok := protocol.Lookup(in.NooraEvent()); ok {
		eng, err := loadEngine(g, env)
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
