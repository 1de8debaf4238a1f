package compat

import (
	"os"
	"path/filepath"
	"testing"
)

func TestMissingScript(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "here.py"), []byte("print(1)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"ROOT=" + dir}
	tests := []struct {
		name, command string
		want          string
		missing       bool
	}{
		{"a python script that is not there is missing", "python3 gone.py", "gone.py", true},
		{"a python script that is there starts", "python3 here.py", "", false},
		{"an env prefix is looked through", "env CLAUDE_PLUGIN_ROOT=/x python3 /nowhere/x.py", "/nowhere/x.py", true},
		{"sh -c is looked through, with its variables expanded", `sh -c 'python3 "$ROOT"/gone.py && echo ok'`, dir + "/gone.py", true},
		{"an unset variable expands to nothing, as in sh", `sh -c 'node $UNSET/hooks/x.js'`, "/hooks/x.js", true},
		{"uv run --script is looked through", "uv run --script hooks/gone.py", "hooks/gone.py", true},
		{"python -m runs a module, not a file", "python3 -m mypkg.hook", "", false},
		{"a program that is no interpreter is not judged", "./gone.sh", "", false},
		{"an interpreter reading a command string is not judged", "node -e 'process.exit(2)'", "", false},
		{"an unparseable command is not judged", "python3 'x", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, missing := missingScript(tt.command, dir, env)
			if missing != tt.missing || (missing && got != tt.want && filepath.Join(dir, got) != filepath.Join(dir, tt.want)) {
				t.Errorf("missingScript(%q) = %q %v, want %q %v", tt.command, got, missing, tt.want, tt.missing)
			}
		})
	}
}

func TestFindClaudePlugin(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	write := func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	local := filepath.Join(t.TempDir(), "fmt")
	write(filepath.Join(local, ".claude-plugin", "plugin.json"), `{"name":"format.er"}`)
	write(filepath.Join(local, "hooks", "hooks.json"), `{"hooks":{}}`)
	cached := filepath.Join(home, ".claude", "plugins", "cache", "acme-tools", "guard", "1.0.0")
	write(filepath.Join(cached, ".claude-plugin", "plugin.json"), `{"name":"guard","hooks":"./config/hooks.json"}`)
	write(filepath.Join(cached, "config", "hooks.json"), `{"hooks":{}}`)
	bare := filepath.Join(t.TempDir(), "bare")
	write(filepath.Join(bare, "hooks", "hooks.json"), `{"hooks":{}}`)
	settings := filepath.Join(t.TempDir(), "settings.json")
	write(settings, `{"hooks":{}}`)

	tests := []struct {
		name, path          string
		ok                  bool
		plugin, hooks, data string
	}{
		{"a plugin directory is read as --plugin-dir reads it (name@inline)", local, true, "format.er", filepath.Join(local, "hooks", "hooks.json"),
			filepath.Join(home, ".claude", "plugins", "data", "format-er-inline")},
		{"a plugin's hooks.json finds its plugin", filepath.Join(local, "hooks", "hooks.json"), true, "format.er", filepath.Join(local, "hooks", "hooks.json"),
			filepath.Join(home, ".claude", "plugins", "data", "format-er-inline")},
		{"a plugin in Claude's cache has its marketplace, and its manifest's hooks file", cached, true, "guard", filepath.Join(cached, "config", "hooks.json"),
			filepath.Join(home, ".claude", "plugins", "data", "guard-acme-tools")},
		{"a directory with only hooks/hooks.json is named after itself", bare, true, "bare", filepath.Join(bare, "hooks", "hooks.json"),
			filepath.Join(home, ".claude", "plugins", "data", "bare-inline")},
		{"a settings file is not a plugin", settings, false, "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, hooks, ok, err := FindClaudePlugin(tt.path)
			if err != nil {
				t.Fatal(err)
			}
			if ok != tt.ok || p.Name != tt.plugin || hooks != tt.hooks || p.Data != tt.data {
				t.Errorf("got %v %q %q %q, want %v %q %q %q", ok, p.Name, hooks, p.Data, tt.ok, tt.plugin, tt.hooks, tt.data)
			}
		})
	}
	if _, _, _, err := FindClaudePlugin(t.TempDir()); err == nil {
		t.Error("an empty directory was taken for a plugin")
	}
}
