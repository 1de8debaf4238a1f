package config

import (
	"time"

	"gopkg.in/yaml.v3"
)

// Limits of the `gateway_hooks:` section (SPEC §9).
const (
	// DefaultBackgroundTimeout bounds how long a handler.py's process waits,
	// after handle() returned, for the asyncio tasks and threads it left
	// running: the agent's long-lived gateway lets them finish.
	DefaultBackgroundTimeout = 30 * time.Second
	MaxBackgroundTimeout     = 300 * time.Second
)

// GatewayHookSettings is the `gateway_hooks:` section.
type GatewayHookSettings struct {
	// BackgroundTimeout is gateway_hooks.background_timeout; 0 means a
	// handler's background work is not waited for at all.
	BackgroundTimeout time.Duration
}

// GatewayHooks reads the `gateway_hooks:` section, with warnings about
// values that were repaired. Only `gateway` commands read it, so it is read
// on demand rather than with the rest of the file.
func (c *Config) GatewayHooks() (GatewayHookSettings, []Warning) {
	s := GatewayHookSettings{BackgroundTimeout: DefaultBackgroundTimeout}
	if c == nil || c.Root == nil || c.Root.Kind != yaml.MappingNode {
		return s, nil
	}
	w := &Config{Path: c.Path}
	for i := 0; i+1 < len(c.Root.Content); i += 2 {
		if c.Root.Content[i].Value != "gateway_hooks" {
			continue
		}
		n := c.Root.Content[i+1]
		if isNullNode(n) {
			continue
		}
		if n.Kind != yaml.MappingNode {
			w.warn(n, "gateway_hooks: expected a mapping of settings; ignoring it")
			continue
		}
		for j := 0; j+1 < len(n.Content); j += 2 {
			if k, v := n.Content[j], n.Content[j+1]; k.Value == "background_timeout" {
				s.BackgroundTimeout = w.seconds(v, "gateway_hooks.background_timeout", 0, DefaultBackgroundTimeout, MaxBackgroundTimeout)
			}
		}
	}
	return s, w.Warnings
}
