package cli

import (
	"fmt"

	"github.com/noora-hooks/noora-hooks/internal/dispatch"

	"github.com/noora-hooks/noora-hooks/protocol"
)

// detach is `exec --detach`: the event's answer is known without running a
// hook (an observer's is always {"event": ...}), so it is printed at once and
// the hooks run in a detached `noora-hooks exec`. What can be checked here is
// checked here, so that the caller, not a log, hears of a bad payload or a
// broken config.
func (c *ExecCmd) detach(g *Globals, env *Env, event protocol.Event) error {
	switch {
	case c.Trace:
		return usageError("--detach cannot be used with --trace: the hooks run after the answer is printed (their warnings go to <home>/logs/exec.log)")
	case event.Category != protocol.Observer:
		return usageError("--detach applies only to observer events, whose answer is always {\"event\": ...}; %s is a %s event, and its caller needs its hooks' answer", event.Name, event.Category)
	}
	kw, err := readKwargs(c.PayloadFile, env.Stdin)
	if err != nil {
		return err
	}
	eng, err := loadEngine(g, env)
	if err != nil {
		return err
	}
	cwd, err := Cwd()
	if err != nil {
		return err
	}
	answer := dispatch.Report{Combined: protocol.Combine(event.Name, kw, nil)}.AnswerJSON(false)
	if eng.SafeMode || eng.Filtered(event, kw) {
		_, err := env.Stdout.Write(answer) // nothing would run
		return err
	}
	stdin, _ := kw.MarshalJSON()
	if err := detachSelf(g, eng.Paths, []string{"exec", event.Name}, stdin, cwd, "exec.log", env); err != nil {
		return fmt.Errorf("exec %s --detach: %w", event.Name, err)
	}
	_, err = env.Stdout.Write(answer)
	return err
}
