package engine

import (
	"github.com/noora-hooks/noora-hooks/internal/plugins"
)

// PluginOptions are the settings plugin processes run with: the config's
// timeouts, the caller's environment, NOORA_PYTHON, warnings and plugin logs.
func (e *Engine) PluginOptions() plugins.Options {
	return plugins.Options{
		Home:            e.Paths.Home,
		ConfigPath:      e.Paths.Config,
		Env:             e.opts.Environ(),
		Python:          plugins.Python(e.opts.Getenv),
		CallbackTimeout: e.Config.Plugins.CallbackTimeout(),
		StartTimeout:    e.Config.Plugins.StartTimeout(),
		RetryAfter:      e.PluginRetryAfter,
		Warn:            e.opts.Warn,
		Log:             e.opts.PluginLog,
	}
}

// Plugins returns the plugin manager of this engine, discovering the plugins
// on first use; nil in safe mode, where plugins are not registered (SPEC §1).
func (e *Engine) Plugins() *plugins.Manager {
	if e.SafeMode {
		return nil
	}
	e.pluginsOnce.Do(func() { e.plugins = plugins.NewManager(e.PluginOptions()) })
	return e.plugins
}

// PluginInfos is what `plugins list` and `list` show: every plugin directory,
// started to learn its hooks and sections, or marked disabled in safe mode.
func (e *Engine) PluginInfos() []plugins.Info {
	if e.SafeMode {
		return plugins.ListDisabled(e.Paths.Home)
	}
	return plugins.List(e.PluginOptions())
}
