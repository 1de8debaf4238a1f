package cli

import (
	"time"

	"github.com/noora-hooks/noora-hooks/internal/config"
)

// gatewaySettings reads what `gateway emit` takes from config.yaml:
// gateway_hooks.background_timeout, and plugins.start_timeout, which bounds
// the start of a handler.py's host as it bounds a plugin's. A config that
// cannot be read does not stop the gateway's events: it warns, and the
// defaults hold.
func gatewaySettings(paths config.Paths, env *Env) (background, start time.Duration) {
	cfg, err := config.Load(paths.Config)
	if err != nil {
		env.Warnf("%v; gateway_hooks.background_timeout is %s", err, config.DefaultBackgroundTimeout)
		return config.DefaultBackgroundTimeout, config.DefaultStartTimeout
	}
	s, warnings := cfg.GatewayHooks()
	for _, w := range warnings {
		env.Warnf("%s", w)
	}
	return s.BackgroundTimeout, cfg.Plugins.StartTimeout()
}
