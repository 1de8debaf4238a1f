package config

import (
	"cmp"
	"time"

	"gopkg.in/yaml.v3"
)

// Limits of the `plugins:` section (SPEC §10).
const (
	DefaultCallbackTimeout = 30 * time.Second
	MaxCallbackTimeout     = 600 * time.Second
	DefaultStartTimeout    = 10 * time.Second
	MaxStartTimeout        = 120 * time.Second
)

// PluginSettings is the `plugins:` section. Its zero value is the defaults,
// so a config without the section (or no config at all) needs no setup.
type PluginSettings struct {
	callbackTimeout    time.Duration
	callbackTimeoutSet bool
	startTimeout       time.Duration
	// StreamReasoningDeltas is plugins.stream_reasoning_deltas: without it,
	// on_stream_delta events of kind "reasoning" reach no hook at all (the
	// Noora guide's opt-in; it covers shell hooks too).
	StreamReasoningDeltas bool
}

// CallbackTimeout is plugins.hook_callback_timeout: how long one plugin
// callback (or system prompt section) may run; 0 means no limit.
func (p PluginSettings) CallbackTimeout() time.Duration {
	if !p.callbackTimeoutSet {
		return DefaultCallbackTimeout
	}
	return p.callbackTimeout
}

// StartTimeout is plugins.start_timeout: how long a plugin process may take
// to start and register its hooks.
func (p PluginSettings) StartTimeout() time.Duration {
	return cmp.Or(p.startTimeout, DefaultStartTimeout)
}

// parsePlugins reads the `plugins:` mapping. Keys it does not know are left
// to other parsers, never warned about here.
func (c *Config) parsePlugins(n *yaml.Node) PluginSettings {
	var p PluginSettings
	if isNullNode(n) {
		return p
	}
	if n.Kind != yaml.MappingNode {
		c.warn(n, "plugins: expected a mapping of plugin settings; ignoring it")
		return p
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch k.Value {
		case "hook_callback_timeout":
			p.callbackTimeout = c.seconds(v, "plugins.hook_callback_timeout", 0, DefaultCallbackTimeout, MaxCallbackTimeout)
			p.callbackTimeoutSet = true
		case "start_timeout":
			p.startTimeout = c.seconds(v, "plugins.start_timeout", 1, DefaultStartTimeout, MaxStartTimeout)
		case "stream_reasoning_deltas":
			b, ok := boolValue(v)
			if !ok && v.Kind == yaml.ScalarNode && !isNullNode(v) {
				b, ok = Truthy(v.Value), true
			}
			if !ok {
				c.warn(v, "plugins.stream_reasoning_deltas must be true or false; treated as false")
			}
			p.StreamReasoningDeltas = b
		}
	}
	return p
}
