package cli

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/noora-hooks/noora-hooks/internal/config"
	"github.com/noora-hooks/noora-hooks/internal/engine"
	"github.com/noora-hooks/noora-hooks/protocol"
)

// stderrMu keeps the lines that plugin processes log, which arrive from
// several goroutines, from being torn.
var stderrMu sync.Mutex

// engineOptions are the engine's options for this command line and process.
func engineOptions(g *Globals, env *Env) engine.Options {
	return engine.Options{
		Home: g.Home, Config: g.Config, AcceptHooks: g.AcceptHooks, ReportUnsafe: env.reportUnsafe,
		Getenv: env.Getenv, Environ: env.Environ, Now: env.Now,
		Warn: func(msg string) { env.Warnf("%s", msg) },
		PluginLog: func(plugin, line string) {
			stderrMu.Lock()
			defer stderrMu.Unlock()
			fmt.Fprintf(env.Stderr, "noora-hooks: plugin %s: %s\n", plugin, line)
		},
	}
}

// loadEngine loads the home for a command that fires events. A YAML syntax
// error exits 1 (SPEC §6).
func loadEngine(g *Globals, env *Env) (*engine.Engine, error) {
	return load(engineOptions(g, env))
}

// loadManaged loads the home for a command that shows, tests or fixes hooks:
// the config is read even in safe mode (engine.Options.Inspect).
func loadManaged(g *Globals, env *Env) (*engine.Engine, error) {
	opts := engineOptions(g, env)
	opts.Inspect = true
	return load(opts)
}

func load(opts engine.Options) (*engine.Engine, error) {
	eng, err := engine.Load(opts)
	var se *config.SyntaxError
	var pp *config.PermissionProblem
	switch {
	case errors.As(err, &se):
		return nil, &exitError{code: 1, err: se}
	case errors.As(err, &pp):
		return nil, &exitError{code: 1, err: pp}
	}
	return eng, err
}

// safeModeNote is printed on stderr, once, by the commands that show or would
// run hooks in safe mode: safe mode runs nothing, anywhere.
const safeModeNote = "NOORA_SAFE_MODE is on: no shell hook, plugin, gateway hook or outbound webhook runs, in exec, serve, test, doctor or gateway emit"

// Cwd is the working directory hooks run in.
func Cwd() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("find working directory: %w", err)
	}
	return wd, nil
}

// unknownEvent is the usage error for an event that is not in the catalogue:
// a close match when there is one, and always the valid list.
func unknownEvent(event string) error {
	msg := fmt.Sprintf("unknown event %q", event)
	if best, ok := protocol.Closest(event); ok {
		msg += fmt.Sprintf("; did you mean %q?", best)
	}
	return usageError("%s\nvalid events: %s", msg, strings.Join(protocol.EventNames(), ", "))
}
