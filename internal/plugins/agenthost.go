package plugins

import (
	"encoding/json"
	"path/filepath"

	"github.com/noora-hooks/noora-hooks/plugins/wire"
)

// AgentHomeVar is the agent's home variable. Plugin and gateway hook
// processes get it set to the noora-hooks home, as the agent sets it for its
// own, so that a plugin that reads it finds the home it runs from.
const AgentHomeVar = "HERMES_HOME"

// HostConfig is the config at path as the Python host hands it to plugins:
// JSON by the agent's YAML rules, or why it could not be read.
func HostConfig(path string) (config json.RawMessage, problem string) {
	if path == "" {
		return nil, ""
	}
	data, err := AgentConfigJSON(path)
	if err != nil {
		return nil, "cannot read the config " + path + ": " + err.Error()
	}
	return data, ""
}

// hostInit is the init line of p's Python host.
func (m *Manager) hostInit(p *Plugin) []byte {
	m.hostConfig.Do(func() {
		m.hostConfigJSON, m.hostConfigErr = HostConfig(m.opts.ConfigPath)
	})
	var manifest json.RawMessage
	if data, err := ReadManifest(p.Dir, "plugin.yaml"); err == nil {
		if v, err := YAMLToAgentJSON(data); err == nil && len(v) > 0 && v[0] == '{' {
			manifest = v
		}
	}
	names := make([]string, 0, 2*len(m.plugins))
	for _, q := range m.plugins {
		names = append(names, q.Name, filepath.Base(q.Dir)) // the agent matches its name or its key
	}
	return wire.Init(wire.HostInit{
		Home: m.opts.Home, ConfigPath: m.opts.ConfigPath,
		Config: m.hostConfigJSON, ConfigError: m.hostConfigErr,
		Manifest: manifest, Plugins: names,
	})
}
