package plugins

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseManifest(t *testing.T) {
	tests := []struct {
		name    string
		yaml    string
		want    string // name|version|argv joined by spaces
		wantErr string
	}{
		{"Name and version are read", "name: audit\nversion: 1.2.0\ndescription: logs\n", "audit|1.2.0|", ""},
		{"The directory names a plugin without a name", "version: 2\n", "dir|2|", ""},
		{"An empty file is all defaults", "", "dir||", ""},
		{"Unknown keys are ignored", "name: x\nprovides_hooks: [a]\nrequires_env: {A: 1}\n", "x||", ""},
		{"A relative program is taken from the plugin directory", "command: ./bin/guard --strict\n", "dir||/p/dir/bin/guard --strict", ""},
		{"A program without a slash is looked up in PATH", "command: python3 plugin.py\n", "dir||python3 plugin.py", ""},
		{"Quotes split like a shell", "command: ./my\\ plugin 'a b'\n", "dir||/p/dir/my plugin a b", ""},
		{"A command that cannot be split is an error", "command: ./x 'unclosed\n", "", "cannot be parsed"},
		{"A command that is a list is an error", "command: [a, b]\n", "", "command must be a string"},
		{"A YAML error is an error", "name: [\n", "", "plugin.yaml:"},
		{"A list is not a manifest", "- a\n", "", "expected a mapping"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ParseManifest("/p/dir", []byte(tt.yaml))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := p.Name + "|" + p.Version + "|" + strings.Join(p.Command, " "); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestDiscoverListsPluginsAlphabeticallyAndSaysWhyOthersAreSkipped(t *testing.T) {
	home := t.TempDir()
	writePlugin(t, home, "zed", map[string]string{"__init__.py": "def register(ctx): pass\n"})
	writePlugin(t, home, "alpha", map[string]string{"plugin.yaml": "command: ./run\n"})
	os.MkdirAll(filepath.Join(home, "plugins", "no-manifest"), 0o755)
	writePlugin(t, home, "no-init", map[string]string{})
	os.MkdirAll(filepath.Join(home, "plugins", ".hidden"), 0o755)
	os.MkdirAll(filepath.Join(home, "plugins", "__pycache__"), 0o755)
	os.WriteFile(filepath.Join(home, "plugins", "stray.txt"), nil, 0o644)

	plugins, problems := Discover(home)
	var names []string
	for _, p := range plugins {
		names = append(names, p.Name+":"+p.Kind())
	}
	if got := strings.Join(names, " "); got != "alpha:command zed:python" {
		t.Errorf("plugins %q", got)
	}
	var msgs []string
	for _, p := range problems {
		msgs = append(msgs, p.String())
	}
	got := strings.Join(msgs, "\n")
	for _, want := range []string{
		`plugin "no-init" (` + filepath.Join(home, "plugins", "no-init") + `): no __init__.py and no command: in plugin.yaml; skipped`,
		`plugin "no-manifest" (` + filepath.Join(home, "plugins", "no-manifest") + `): no plugin.yaml; skipped`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("problems lack %q:\n%s", want, got)
		}
	}
	if len(problems) != 2 {
		t.Errorf("%d problems: %s", len(problems), got)
	}
	if p, pr := Discover(filepath.Join(home, "missing")); p != nil || pr != nil {
		t.Errorf("a missing plugins directory: %v %v", p, pr)
	}
}

func FuzzParseManifest(f *testing.F) {
	for _, s := range []string{
		"name: a\nversion: 1\n", "command: ./x 'y z'\n", "command: \"\n", "- 1\n", "name: [\n",
		"name: &a x\nversion: *a\n", "command: ~/bin/p\n", "{name: {a: b}}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseManifest("/plugins/x", data)
		if err != nil {
			return
		}
		if p.Name == "" || p.Dir != "/plugins/x" {
			t.Fatalf("accepted a plugin without a name: %+v", p)
		}
		if p.Command != nil && (len(p.Command) == 0 || p.Command[0] == "") {
			t.Fatalf("accepted an empty command: %q", p.Command)
		}
	})
}
