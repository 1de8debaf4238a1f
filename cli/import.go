package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/noora-hooks/noora-hooks/internal/compat"
	"github.com/noora-hooks/noora-hooks/internal/config"
	"github.com/noora-hooks/noora-hooks/internal/consent"
	"github.com/noora-hooks/noora-hooks/protocol"
)

// ImportCmd is `noora-hooks import claude|cursor|gemini|codex [FILE]` (SPEC §11).
type ImportCmd struct {
	Tool  string `arg:"" enum:"claude,cursor,gemini,codex" help:"Whose hooks: claude (a Claude Code settings.json), cursor (a Cursor hooks.json), gemini (a Gemini CLI settings.json) or codex (a Codex CLI hooks.json or config.toml)."`
	File  string `arg:"" optional:"" type:"path" help:"The file to read (default: the project's: ./.claude/settings.json, ./.cursor/hooks.json, ./.gemini/settings.json, ./.codex/hooks.json, else ./.codex/config.toml). For claude, also a plugin directory or its hooks/hooks.json."`
	Write bool   `help:"Merge the entries into the config file instead of printing them: what is there stays, comments included; an entry already there is not added again."`
	JSON  bool   `name:"json" help:"Print a JSON report: {source, dialect, entries, warnings, yaml, config, added, present}."`
}

// Run prints the equivalent hooks: YAML, or merges it into the config.
func (c *ImportCmd) Run(g *Globals, env *Env) error {
	file := c.File
	if file == "" {
		file = compat.DefaultImportFile(c.Tool)
	}
	var plugin *compat.ClaudePlugin
	if c.Tool == compat.Claude {
		p, hooksFile, ok, err := compat.FindClaudePlugin(file)
		if err != nil {
			return err
		}
		if ok {
			plugin, file = &p, hooksFile
		}
	}
	data, err := readSettings(c.Tool, file)
	if err != nil {
		return err
	}
	var im compat.Imported
	if plugin != nil {
		im, err = compat.ImportClaudePlugin(*plugin, file, data)
	} else {
		im, err = compat.Import(c.Tool, file, data)
	}
	if err != nil {
		return err
	}
	for _, w := range im.Warnings {
		env.Warnf("%s", w)
	}
	header := fmt.Sprintf("Imported from %s by noora-hooks import %s.\nReview the commands, then approve them: noora-hooks approve", file, c.Tool)
	rendered, _, _, err := config.AddEntries(file, nil, header, im.Entries)
	if err != nil {
		return err
	}
	report := importReport{Source: file, Dialect: c.Tool, Entries: im.Entries, Warnings: im.Warnings, YAML: string(rendered)}
	if c.Write {
		if err := c.write(g, env, header, &report); err != nil {
			return err
		}
	}
	switch {
	case c.JSON:
		b, _ := report.object().MarshalJSON()
		_, err = env.Stdout.Write(append(b, '\n'))
	case c.Write:
		_, err = fmt.Fprintf(env.Stdout, "%s: added %d hook entries, %d already there; approve new hooks with: noora-hooks approve\n", report.Config, report.Added, report.Present)
	default:
		_, err = env.Stdout.Write(rendered)
	}
	return err
}

// readSettings reads a settings file, bounded like a config file: a settings
// file is written by hand.
func readSettings(tool, file string) ([]byte, error) {
	if _, err := os.Stat(file); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read %s: no such file; name the file to import, e.g. noora-hooks import %s %s", file, tool, filepath.Join("~", compat.DefaultImportFile(tool)))
	}
	data, _, err := readInput("settings", file, nil, config.MaxFileSize)
	if err != nil {
		return nil, fmt.Errorf("%w; is it the right file?", err)
	}
	return data, nil
}

// write merges the entries into the config file, atomically, and only when
// the result still parses.
func (c *ImportCmd) write(g *Globals, env *Env, header string, report *importReport) error {
	paths, err := config.Resolve(g.Home, g.Config, env.Getenv)
	if err != nil {
		return err
	}
	path := paths.Config
	mode := os.FileMode(0o644)
	old, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		old = nil
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return fmt.Errorf("create %s: %w", filepath.Dir(path), err)
		}
	case err != nil:
		return fmt.Errorf("read config: %w", err)
	default:
		if st, err := os.Stat(path); err == nil {
			mode = st.Mode().Perm()
		}
	}
	merged, added, present, err := config.AddEntries(path, old, header, report.Entries)
	if err != nil {
		var se *config.SyntaxError
		if errors.As(err, &se) {
			return &exitError{code: 1, err: fmt.Errorf("%w; the config was not changed", se)}
		}
		return fmt.Errorf("%w; the config was not changed", err)
	}
	if _, err := config.Parse(path, merged); err != nil {
		return fmt.Errorf("merging into %s would not give a valid config (%v); the config was not changed", path, err)
	}
	if added > 0 {
		if err := consent.WriteAtomic(path, merged, mode); err != nil {
			return err
		}
	}
	report.Config, report.Added, report.Present = path, added, present
	return nil
}

// importReport is the --json shape of import.
type importReport struct {
	Source, Dialect string
	Entries         []config.Entry
	Warnings        []string
	YAML            string
	Config          string // "" unless --write
	Added, Present  int
}

func (r importReport) object() protocol.Object {
	entries := make([]protocol.Object, 0, len(r.Entries))
	for _, e := range r.Entries {
		nullable := func(s string) []byte {
			if s == "" {
				return []byte("null")
			}
			return protocol.String(s)
		}
		timeout := []byte("null")
		if e.Timeout > 0 {
			timeout = protocol.Raw(e.Timeout)
		}
		entries = append(entries, protocol.Object{
			{Key: "event", Value: protocol.String(e.Event)},
			{Key: "matcher", Value: nullable(e.Matcher)},
			{Key: "command", Value: protocol.String(e.Command)},
			{Key: "timeout", Value: timeout},
			{Key: "fail_closed", Value: protocol.Raw(e.FailClosed)},
			{Key: "dialect", Value: protocol.String(e.Dialect)},
			{Key: "dialect_event", Value: nullable(e.DialectEvent)},
			{Key: "comment", Value: nullable(e.Comment)},
		})
	}
	warnings := r.Warnings
	if warnings == nil {
		warnings = []string{}
	}
	configPath := []byte("null")
	if r.Config != "" {
		configPath = protocol.String(r.Config)
	}
	return protocol.Object{
		{Key: "source", Value: protocol.String(r.Source)},
		{Key: "dialect", Value: protocol.String(r.Dialect)},
		{Key: "entries", Value: protocol.Raw(entries)},
		{Key: "warnings", Value: protocol.Raw(warnings)},
		{Key: "yaml", Value: protocol.String(r.YAML)},
		{Key: "config", Value: configPath},
		{Key: "added", Value: protocol.Raw(r.Added)},
		{Key: "present", Value: protocol.Raw(r.Present)},
	}
}
