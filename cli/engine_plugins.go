package cli

import (
	"fmt"
	"sync"

	"github.com/noora-hooks/noora-hooks/plugins"
)

// stderrMu keeps the lines that plugin processes log, which arrive from
// several goroutines, from being torn.
var stderrMu sync.Mutex

// PluginOptions are the settings plugin processes run with: the config's
// timeouts, the caller's environment, NOORA_PYTHON, warnings and plugin logs
// on stderr.
func (e *Engine) PluginOptions() plugins.Options {
	env := e.env
	return plugins.Options{
		Home:            e.Paths.Home,
		ConfigPath:      e.Paths.Config,
		Env:             env.Environ(),
		Python:          plugins.Python(env.Getenv),
		CallbackTimeout: e.Config.Plugins.CallbackTimeout(),
		StartTimeout:    e.Config.Plugins.StartTimeout(),
		RetryAfter:      e.PluginRetryAfter,
		Warn:            func(msg string) { env.Warnf("%s", msg) },
		Log: func(plugin, line string) {
			stderrMu.Lock()
			defer stderrMu.Unlock()
			fmt.Fprintf(env.Stderr, "noora-hooks: plugin %s: %s\n", plugin, line)
		},
	}
}

// Plugins returns the plugin manager of this run, discovering the plugins on
// first use; nil in safe mode, where plugins are not registered (SPEC §1).
func (e *Engine) Plugins() *plugins.Manager {
	if e.SafeMode {
		return nil
	}
	if e.plugins == nil {
		e.plugins = plugins.NewManager(e.PluginOptions())
	}
	return e.plugins
}

// Close stops what the engine started: the plugin processes.
func (e *Engine) Close() {
	if e.plugins != nil {
		e.plugins.Close()
	}
}
