package cli

import (
	"time"

	"github.com/noora-hooks/noora-hooks/config"
)

// gatewayBackground is gateway_hooks.background_timeout. A config that
// cannot be read does not stop the gateway's events: it warns, and the
// default holds.
func gatewayBackground(paths config.Paths, env *Env) time.Duration {
	cfg, err := config.Load(paths.Config)
	if err != nil {
		env.Warnf("%v; gateway_hooks.background_timeout is %s", err, config.DefaultBackgroundTimeout)
		return config.DefaultBackgroundTimeout
	}
	s, warnings := cfg.GatewayHooks()
	for _, w := range warnings {
		env.Warnf("%s", w)
	}
	return s.BackgroundTimeout
}
