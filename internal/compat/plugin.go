package compat

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/noora-hooks/noora-hooks/internal/config"
	"github.com/noora-hooks/noora-hooks/internal/lazy"
)

// ClaudePlugin is a Claude Code plugin whose hooks are imported: Claude
// Code runs them with ${CLAUDE_PLUGIN_ROOT} replaced in the command and set
// in the environment, and likewise ${CLAUDE_PLUGIN_DATA} (Plugins
// reference, "Environment variables").
type ClaudePlugin struct {
	Name string // from .claude-plugin/plugin.json, else the directory's name
	Root string // absolute: CLAUDE_PLUGIN_ROOT
	// Data is CLAUDE_PLUGIN_DATA: <home>/.claude/plugins/data/<id>, where the
	// id is name@marketplace with every character outside [A-Za-z0-9_-]
	// turned into "-". A plugin in Claude's cache
	// (~/.claude/plugins/cache/<marketplace>/<name>/<version>) has its
	// marketplace; any other directory is loaded as --plugin-dir loads it,
	// as name@inline.
	Data string
}

// FindClaudePlugin reads path as a Claude Code plugin: a directory with
// .claude-plugin/plugin.json or hooks/hooks.json, or the hooks file of one
// (<root>/hooks/hooks.json). It returns the hooks file to import; ok is false
// when path is not a plugin (a settings.json, say).
func FindClaudePlugin(path string) (p ClaudePlugin, hooksFile string, ok bool, err error) {
	st, err := os.Stat(path)
	if err != nil {
		return ClaudePlugin{}, "", false, nil // the caller reports the missing file
	}
	root := path
	if !st.IsDir() {
		dir := filepath.Dir(path)
		if filepath.Base(path) != "hooks.json" || filepath.Base(dir) != "hooks" {
			return ClaudePlugin{}, "", false, nil
		}
		root = filepath.Dir(dir)
	}
	if abs, err := filepath.Abs(root); err == nil {
		root = abs
	}
	manifest := filepath.Join(root, ".claude-plugin", "plugin.json")
	hooksFile = filepath.Join(root, "hooks", "hooks.json")
	p = ClaudePlugin{Name: filepath.Base(root), Root: root}
	data, err := readBounded(manifest)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if !fileExists(hooksFile) {
			if st.IsDir() {
				return ClaudePlugin{}, "", false, fmt.Errorf("read %s: a directory with neither .claude-plugin/plugin.json nor hooks/hooks.json is not a Claude Code plugin", path)
			}
			return ClaudePlugin{}, "", false, nil
		}
	case err != nil:
		return ClaudePlugin{}, "", false, err
	default:
		m := gjson.ParseBytes(data)
		if !gjson.ValidBytes(data) || !m.IsObject() {
			return ClaudePlugin{}, "", false, fmt.Errorf("read %s: not a JSON object", manifest)
		}
		if n := member(m, "name"); n.Type == gjson.String && strings.TrimSpace(n.String()) != "" {
			p.Name = strings.TrimSpace(n.String())
		}
		// "hooks" may name another hooks file, relative to the root.
		if h := member(m, "hooks"); h.Type == gjson.String && strings.TrimSpace(h.String()) != "" && st.IsDir() {
			hooksFile = filepath.Join(root, filepath.FromSlash(strings.TrimSpace(h.String())))
		}
	}
	if !st.IsDir() {
		hooksFile = path
	}
	p.Data = pluginDataDir(p.Name, root)
	return p, hooksFile, true, nil
}

var unsafeIDChars = lazy.Regexp(`[^A-Za-z0-9_-]`)

func pluginDataDir(name, root string) string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return ""
	}
	plugins := filepath.Join(home, ".claude", "plugins")
	marketplace := "inline"
	if rel, err := filepath.Rel(filepath.Join(plugins, "cache"), root); err == nil && !strings.HasPrefix(rel, "..") {
		if parts := strings.Split(filepath.ToSlash(rel), "/"); len(parts) >= 2 && parts[0] != "." {
			marketplace = parts[0]
		}
	}
	return filepath.Join(plugins, "data", unsafeIDChars().ReplaceAllString(name+"@"+marketplace, "-"))
}

func readBounded(file string) ([]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, config.MaxFileSize+1)) // a manifest is written by hand: 8 MiB
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	if len(data) > config.MaxFileSize {
		return nil, fmt.Errorf("read %s: larger than %d MiB", file, config.MaxFileSize>>20)
	}
	return data, nil
}

// ImportClaudePlugin reads the hooks file of plugin p like a settings file,
// with the plugin's variables resolved (see ClaudePlugin).
func ImportClaudePlugin(p ClaudePlugin, file string, data []byte) (Imported, error) {
	return importWith(Claude, file, data, &p)
}

// pluginVar matches ${CLAUDE_PLUGIN_ROOT} and $CLAUDE_PLUGIN_ROOT (and DATA).
var pluginVar = lazy.Regexp(`\$\{(CLAUDE_PLUGIN_ROOT|CLAUDE_PLUGIN_DATA)\}|\$(CLAUDE_PLUGIN_ROOT|CLAUDE_PLUGIN_DATA)\b`)

// shellVar matches the variables a command line names.
var shellVar = lazy.Regexp(`\$\{([A-Za-z_][A-Za-z0-9_]*)[^}]*\}|\$([A-Za-z_][A-Za-z0-9_]*)`)

// substitutePlugin replaces the plugin's variables in one word or command,
// as Claude Code does before it runs the command.
func (im *importer) substitutePlugin(s string) string {
	if im.plugin == nil {
		return s
	}
	return pluginVar().ReplaceAllStringFunc(s, func(m string) string {
		if strings.Contains(m, "DATA") {
			return im.plugin.Data
		}
		return im.plugin.Root
	})
}

// variablesSetByNoora are the variables a dialect hook finds set without the
// user doing anything.
var variablesSetByNoora = map[string]bool{"CLAUDE_PROJECT_DIR": true, "HOME": true, "PATH": true, "PWD": true, "USER": true, "NOORA_HOOK_EVENT": true, "NOORA_HOME": true}

// checkResolved warns about what the command still needs from the
// environment, and about plugin files it names that are not there: a hook
// whose script is missing fails, and would otherwise be found out only at
// the first tool call.
func (im *importer) checkResolved(where, command string) {
	seen := map[string]bool{}
	for _, m := range shellVar().FindAllStringSubmatch(command, -1) {
		name := m[1] + m[2]
		if seen[name] || variablesSetByNoora[name] {
			continue
		}
		seen[name] = true
		switch {
		case strings.HasPrefix(name, "CLAUDE_PLUGIN_"):
			im.warnf(where, "%q uses $%s, which Claude Code sets only for a plugin's hooks: import the plugin directory (noora-hooks import claude DIR) to have it resolved; as it is, it expands to nothing", command, name)
		default:
			im.warnf(where, "%q uses $%s, which noora-hooks does not set: it must be in the environment noora-hooks runs in", command, name)
		}
	}
	if im.plugin == nil {
		return
	}
	for _, word := range strings.Fields(command) {
		word = strings.Trim(word, `'"`)
		if strings.HasPrefix(word, im.plugin.Root+string(filepath.Separator)) && !fileExists(word) {
			im.warnf(where, "%q names %s, which is not in the plugin: the hook will fail to start", command, word)
		}
	}
}
