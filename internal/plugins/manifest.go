package plugins

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/noora-hooks/noora-hooks/internal/shellhook"

	"gopkg.in/yaml.v3"
)

// MaxManifestSize bounds a plugin.yaml we read: it is a few lines by hand.
const MaxManifestSize = 1 << 20

// Plugin is one discovered plugin directory (SPEC §10).
type Plugin struct {
	// Name is plugin.yaml's name, else the directory's.
	Name        string
	Dir         string
	Version     string
	Description string
	// Command is the argv of a plugin written in any language (plugin.yaml
	// `command:`); nil for a Python plugin (__init__.py with register(ctx)).
	Command     []string
	CommandLine string
}

// Kind is "python" or "command".
func (p *Plugin) Kind() string {
	if p.Command != nil {
		return "command"
	}
	return "python"
}

// Problem is a plugin directory that was skipped, and why.
type Problem struct {
	Name string // the directory's name
	Dir  string
	Msg  string
}

func (p Problem) String() string {
	return fmt.Sprintf("plugin %q (%s): %s; skipped", p.Name, p.Dir, p.Msg)
}

// Subdirs lists the directories under root that may hold a plugin or a
// gateway hook, sorted by name: not hidden ones, not __pycache__, not stray
// files or dangling links. A missing root has none.
func Subdirs(root string) ([]string, error) {
	entries, err := os.ReadDir(root)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries { // os.ReadDir sorts by name
		name := e.Name()
		if strings.HasPrefix(name, ".") || name == "__pycache__" {
			continue
		}
		if st, err := os.Stat(filepath.Join(root, name)); err != nil || !st.IsDir() {
			continue
		}
		names = append(names, name)
	}
	return names, nil
}

// ReadManifest reads dir/name, at most MaxManifestSize bytes: a manifest is
// written by hand, and a larger file is a mistake, not a manifest.
func ReadManifest(dir, name string) ([]byte, error) {
	f, err := os.Open(filepath.Join(dir, name))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("no %s", name)
		}
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxManifestSize+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if len(data) > MaxManifestSize {
		return nil, fmt.Errorf("%s is over %d KiB", name, MaxManifestSize>>10)
	}
	return data, nil
}

// Dir is where plugins live: <home>/plugins.
func Dir(home string) string { return filepath.Join(home, "plugins") }

// Discover lists the plugins under <home>/plugins in alphabetical order of
// their directories (SPEC §3). A directory that is not a valid plugin is a
// Problem, in the same order. A missing plugins directory means no plugins.
func Discover(home string) ([]*Plugin, []Problem) {
	root := Dir(home)
	names, err := Subdirs(root)
	if err != nil {
		return nil, []Problem{{Name: "plugins", Dir: root, Msg: fmt.Sprintf("cannot read the plugins directory: %v", err)}}
	}
	var plugins []*Plugin
	var problems []Problem
	for _, name := range names {
		dir := filepath.Join(root, name)
		p, err := Load(dir)
		if err != nil {
			problems = append(problems, Problem{Name: name, Dir: dir, Msg: err.Error()})
			continue
		}
		plugins = append(plugins, p)
	}
	return plugins, problems
}

// Load reads the plugin in dir: its plugin.yaml, and its __init__.py unless
// plugin.yaml names a command.
func Load(dir string) (*Plugin, error) {
	data, err := ReadManifest(dir, "plugin.yaml")
	if err != nil {
		return nil, err
	}
	p, err := ParseManifest(dir, data)
	if err != nil {
		return nil, err
	}
	if p.Command == nil {
		if _, err := os.Stat(filepath.Join(dir, "__init__.py")); err != nil {
			return nil, errors.New("no __init__.py and no command: in plugin.yaml")
		}
	}
	return p, nil
}

// ParseManifest reads plugin.yaml text: name, version, description and
// command; other keys are ignored. A relative program path in command is
// taken from the plugin directory.
func ParseManifest(dir string, data []byte) (*Plugin, error) {
	p := &Plugin{Name: filepath.Base(dir), Dir: dir}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("plugin.yaml: %s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if len(doc.Content) == 0 {
		return p, nil // empty: every field has its default
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
			return p, nil
		}
		return nil, fmt.Errorf("plugin.yaml:%d: expected a mapping (name, version, command, ...)", root.Line)
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
			continue
		}
		switch k.Value {
		case "name", "version", "description", "command":
		default:
			continue
		}
		if v.Kind != yaml.ScalarNode {
			return nil, fmt.Errorf("plugin.yaml:%d: %s must be a string", v.Line, k.Value)
		}
		s := strings.TrimSpace(v.Value)
		switch k.Value {
		case "name":
			if s != "" {
				p.Name = s
			}
		case "version":
			p.Version = s
		case "description":
			p.Description = s
		case "command":
			if s == "" {
				return nil, fmt.Errorf("plugin.yaml:%d: command is empty", v.Line)
			}
			argv, err := shellhook.Argv(s)
			if err != nil {
				return nil, fmt.Errorf("plugin.yaml:%d: %v", v.Line, err)
			}
			if strings.Contains(argv[0], "/") && !filepath.IsAbs(argv[0]) {
				argv[0] = filepath.Join(dir, argv[0])
			}
			p.Command, p.CommandLine = argv, s
		}
	}
	return p, nil
}
