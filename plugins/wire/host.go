package wire

import (
	"encoding/json"

	"github.com/noora-hooks/noora-hooks/protocol"
)

// HostInit is the first line noora-hooks sends to the embedded Python host
// (never to a command plugin): what the host needs before it loads the plugin
// or handler, so that the agent's modules it stands in for can answer.
type HostInit struct {
	Home       string
	ConfigPath string
	// Config is config.yaml as the agent reads it (a JSON object), nil when
	// there is none; ConfigError says why it could not be read.
	Config      json.RawMessage
	ConfigError string
	// Manifest is plugin.yaml as a JSON object (nil for a gateway hook).
	Manifest json.RawMessage
	// Plugins are the names of the plugins in the home (ctx.has_plugin).
	Plugins []string
	// DrainTimeout bounds, in seconds, how long a gateway handler's process
	// waits for its background work once noora-hooks closes its stdin.
	DrainTimeout float64
}

// Init encodes i as the host's init line.
func Init(i HostInit) []byte {
	orNull := func(v json.RawMessage) json.RawMessage {
		if len(v) == 0 {
			return json.RawMessage("null")
		}
		return v
	}
	plugins := i.Plugins
	if plugins == nil {
		plugins = []string{}
	}
	return line(protocol.Object{
		{Key: "type", Value: protocol.String("init")},
		{Key: "home", Value: protocol.String(i.Home)},
		{Key: "config_path", Value: protocol.String(i.ConfigPath)},
		{Key: "config", Value: orNull(i.Config)},
		{Key: "config_error", Value: protocol.String(i.ConfigError)},
		{Key: "manifest", Value: orNull(i.Manifest)},
		{Key: "plugins", Value: protocol.Raw(plugins)},
		{Key: "drain_timeout", Value: protocol.Raw(i.DrainTimeout)},
	})
}

// Release encodes the request that follows a gateway handler's answer: the
// host reports how much background work the handler left running
// ({"pending": N}). When wait is false, noora-hooks will not wait for it, and
// the host moves its log to logPath.
func Release(id int64, logPath string, wait bool) []byte {
	return line(protocol.Object{
		{Key: "type", Value: protocol.String("release")},
		{Key: "id", Value: protocol.Raw(id)},
		{Key: "log", Value: protocol.String(logPath)},
		{Key: "wait", Value: protocol.Raw(wait)},
	})
}
