package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/google/shlex"

	"github.com/noora-hooks/noora-hooks/config"
	"github.com/noora-hooks/noora-hooks/consent"
)

// This file holds what the commands that manage hooks share: list, test,
// approve, revoke and doctor.

// loadManaged loads the engine for a command that looks at the configured
// hooks. Unlike exec it reads the config even in safe mode: NOORA_SAFE_MODE
// stops hooks from being registered for the agent (SPEC §1), and a user in
// safe mode is exactly the one who needs to see, test and fix them. The engine
// still reports SafeMode, and its Dispatcher still has no source.
func loadManaged(g *Globals, env *Env) (*Engine, error) {
	safe := config.Truthy(env.Getenv("NOORA_SAFE_MODE"))
	if !safe {
		return LoadEngine(g, env)
	}
	unsafe := *env
	unsafe.Getenv = func(key string) string {
		if key == "NOORA_SAFE_MODE" {
			return ""
		}
		return env.Getenv(key)
	}
	eng, err := LoadEngine(g, &unsafe)
	if err != nil {
		return nil, err
	}
	eng.SafeMode = true
	return eng, nil
}

// safeModeNote is printed on stderr, once, by the commands that show or would
// run hooks in safe mode: safe mode runs nothing, anywhere.
const safeModeNote = "NOORA_SAFE_MODE is on: no shell hook, plugin, gateway hook or outbound webhook runs, in exec, serve, test, doctor or gateway emit"

// safeModeNotRun is what a report says about a hook safe mode did not run.
const safeModeNotRun = "not run: NOORA_SAFE_MODE is on"

// hookState is what consent knows about one configured shell hook.
type hookState struct {
	Hook     config.ShellHook
	Approved bool
	Approval consent.Approval
	// Script is the token of the command that names its script (SPEC §5).
	Script string
	// Binding is the file the script resolves to here, and its content.
	Binding consent.Binding
	// Mtime is the script's modification time; zero when it cannot be found.
	Mtime time.Time
	// Drift: the approval does not cover what would run here (another
	// file, other content); DriftWhy says how.
	Drift    bool
	DriftWhy string
}

// stateOf looks the hook up in the allowlist and checks what its command
// would run from the current directory for drift (SPEC §5).
func (e *Engine) stateOf(h config.ShellHook) hookState {
	s := hookState{Hook: h, Script: consent.Script(h.Command, shlex.Split)}
	s.Approval, s.Approved = e.Allowlist().Find(h.Event, h.Command)
	cwd, _ := os.Getwd()
	s.Binding = consent.Bind(h.Command, cwd, e.env.Environ())
	s.Mtime = s.Binding.Mtime
	if s.Approved {
		s.DriftWhy = s.Approval.Drift(s.Binding)
		s.Drift = s.DriftWhy != ""
	}
	return s
}

// writeJSON prints a report: indented for people reading it in a terminal,
// without HTML escaping (commands hold <, > and &).
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// textTime is how text reports show a time: UTC, to the second.
func textTime(t time.Time) string {
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

// storedTime reads a time kept in the allowlist (RFC 3339); ok is false for
// an absent or hand-written value that does not parse.
func storedTime(s string) (time.Time, bool) {
	if s == "" {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil
}

// jsonTime is a time in a --json report: RFC 3339 in UTC, or null.
func jsonTime(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := t.UTC().Format(time.RFC3339Nano)
	return &s
}

// jsonStored passes a stored time through to a --json report when it is
// RFC 3339, and gives null otherwise.
func jsonStored(s string) *string {
	t, ok := storedTime(s)
	if !ok {
		return nil
	}
	return jsonTime(t)
}

// seconds prints a timeout.
func seconds(d time.Duration) string {
	return fmt.Sprintf("%ds", int(d/time.Second))
}

// plural is "1 hook", "2 hooks".
func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
