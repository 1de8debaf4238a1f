package compat

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/tidwall/gjson"

	"github.com/noora-hooks/noora-hooks/internal/config"
	"github.com/noora-hooks/noora-hooks/internal/lazy"
)

// geminiSettingKeys are keys under "hooks" that Gemini CLI skips as
// settings, not events (its older place for hooksConfig).
var geminiSettingKeys = map[string]bool{"enabled": true, "disabled": true, "notifications": true}

// geminiUnset: the variables Gemini CLI substitutes in a hook's command
// that noora-hooks does not set.
var geminiUnset = lazy.Regexp(`\$\{?GEMINI_PLANS_DIR\b`)

// gemini reads a Gemini CLI settings.json: {"hooks": {"<Event>":
// [{"matcher": "...", "sequential": bool, "hooks": [{"type": "command",
// "command": "...", "name": "...", "timeout": <ms>, "description": "...",
// "env": {...}}]}]}, "hooksConfig": {"enabled": bool, "disabled": [...]}}.
func (im *importer) gemini(root gjson.Result) {
	cfg := member(root, "hooksConfig")
	if member(cfg, "enabled").Type == gjson.False {
		im.warnf("hooksConfig.enabled", "is false, so Gemini CLI runs none of these hooks; they are imported anyway, remove what you do not want")
	}
	disabled := map[string]bool{}
	if d := member(cfg, "disabled"); d.Exists() {
		list, ok := stringList(d)
		if !ok {
			im.warnf("hooksConfig.disabled", "must be a list of hook names or commands; ignored")
		}
		for _, s := range list {
			disabled[s] = true
		}
	}
	hooks, ok := im.hooksObject(root)
	if !ok {
		return
	}
	hooks.ForEach(func(k, groups gjson.Result) bool {
		name := k.String()
		where := "hooks." + name
		if geminiSettingKeys[name] {
			im.warnf(where, "is a setting, not an event (Gemini CLI skips it; hooksConfig.%s is its place); not carried over", name)
			return true
		}
		ev, known := LookupEvent(Gemini, name)
		if !groups.IsArray() {
			im.warnf(where, "expected a list of hook definitions; skipped")
			return true
		}
		for gi, group := range groups.Array() {
			gwhere := fmt.Sprintf("%s[%d]", where, gi)
			if !group.IsObject() {
				im.warnf(gwhere, "expected a hook definition (an object with \"hooks\"); skipped")
				continue
			}
			matcher, mok := im.matcher(gwhere, member(group, "matcher"))
			seq := member(group, "sequential")
			if seq.Exists() && seq.Type != gjson.True && seq.Type != gjson.False {
				im.warnf(gwhere, "sequential must be true or false; treated as false")
			}
			handlers := member(group, "hooks")
			if !handlers.IsArray() {
				im.warnf(gwhere, "expected \"hooks\": a list of hook configurations; skipped")
				continue
			}
			// A sequential definition's hooks run one at a time, in
			// order: one sequence per definition (SPEC §2 `sequence`).
			sequence := ""
			if seq.Type == gjson.True && len(handlers.Array()) > 1 {
				sequence = fmt.Sprintf("gemini %s", gwhere)
			}
			for hi, h := range handlers.Array() {
				hwhere := fmt.Sprintf("%s.hooks[%d]", gwhere, hi)
				command, ok := im.handler(hwhere, h, "type", "command", "name", "timeout", "description", "env")
				if !ok {
					continue
				}
				hookName := member(h, "name").String()
				if disabled[command] || hookName != "" && disabled[hookName] {
					im.warnf(hwhere, "is listed in hooksConfig.disabled, so Gemini CLI does not run %q; not carried over", command)
					continue
				}
				if !known || ev.Noora == "" {
					im.unmapped(hwhere, name, ev, command)
					continue
				}
				if geminiUnset().MatchString(command) {
					im.warnf(hwhere, "%q uses $GEMINI_PLANS_DIR, a directory of Gemini CLI's own that noora-hooks does not set", command)
				}
				if env := member(h, "env"); env.Exists() {
					prefixed, ok := envPrefix(env)
					if !ok {
						im.warnf(hwhere, "env must map names to strings; the hook %q is skipped", command)
						continue
					}
					command = prefixed + command
				}
				e := config.Entry{Event: ev.Noora, Dialect: Gemini, Sequence: sequence}
				if mok && matcher != "" {
					if ev.Matcher == "" {
						im.warnf(gwhere, "Gemini CLI has nothing a matcher could filter on %s; the matcher %q is dropped", name, matcher)
					} else {
						e.Matcher = matcher
					}
				}
				e.Timeout = im.timeoutMS(hwhere, member(h, "timeout"))
				for _, key := range []string{"name", "description"} {
					if s := strings.TrimSpace(member(h, key).String()); s != "" && e.Comment == "" {
						e.Comment = s
					}
				}
				im.add(hwhere, ev, e, command, "")
			}
		}
		return true
	})
}

// envPrefix writes a hook's env as `env NAME=value ... ` in front of its
// command: env(1) sets them without a shell.
func envPrefix(env gjson.Result) (string, bool) {
	if !env.IsObject() {
		return "", false
	}
	var argv []string
	ok := true
	env.ForEach(func(k, v gjson.Result) bool {
		name := k.String()
		if v.Type != gjson.String || name == "" || strings.ContainsAny(name, "= \t\n") {
			ok = false
			return false
		}
		argv = append(argv, name+"="+v.String())
		return true
	})
	if !ok || len(argv) == 0 {
		return "", ok
	}
	return joinArgv(append([]string{"env"}, argv...)) + " ", true
}

// timeoutMS reads a Gemini timeout, in milliseconds, as whole seconds
// (rounded up); 0 means the default, which is 60 s in both.
func (im *importer) timeoutMS(where string, t gjson.Result) int {
	if !t.Exists() || t.Type == gjson.Null {
		return 0
	}
	ms := t.Float()
	if t.Type != gjson.Number || ms <= 0 || math.IsInf(ms, 0) {
		im.warnf(where, "timeout %s is not a positive number of milliseconds; the default (60 s) applies", t.Raw)
		return 0
	}
	secs := math.Ceil(ms / 1000)
	if max := config.MaxTimeout.Seconds(); secs > max {
		im.warnf(where, "timeout %s ms is over noora-hooks' maximum; clamped to %d s", t.Raw, int(max))
		return int(max)
	}
	if secs*1000 != ms {
		im.warnf(where, "timeout %s ms is not a whole number of seconds; rounded up to %d s", t.Raw, int(secs))
	}
	return int(secs)
}

// codexTOML reads the [hooks] tables of a Codex CLI config.toml and returns
// them as the hooks.json they are equivalent to ({"hooks": {...}}), with
// notes about the rest of the file. TOML is parsed with
// github.com/BurntSushi/toml.
func codexTOML(file string, data []byte) ([]byte, []string, error) {
	var doc map[string]any
	if _, err := toml.Decode(string(data), &doc); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, nil, &config.SyntaxError{File: file, Line: pe.Position.Line, Col: pe.Position.Col, Msg: pe.Message}
		}
		return nil, nil, &config.SyntaxError{File: file, Line: 1, Col: 1, Msg: err.Error()}
	}
	var notes []string
	if features, ok := doc["features"].(map[string]any); ok {
		for _, key := range []string{"hooks", "codex_hooks"} {
			if on, ok := features[key].(bool); ok && !on {
				notes = append(notes, fmt.Sprintf("features.%s is false, so Codex CLI runs none of these hooks; they are imported anyway, remove what you do not want", key))
			}
		}
	}
	out := map[string]any{}
	hooks, ok := doc["hooks"]
	if !ok {
		// hooksObject reports the missing table.
		b, err := json.Marshal(out)
		return b, notes, err
	}
	table, ok := hooks.(map[string]any)
	if !ok {
		out["hooks"] = hooks
	} else {
		events := map[string]any{}
		for name, v := range table {
			if name == "state" {
				continue // hook trust: hashes Codex keeps of reviewed hooks
			}
			events[name] = v
		}
		out["hooks"] = events
		if _, ok := table["state"]; ok {
			notes = append(notes, "hooks.state holds Codex CLI's trust in reviewed hooks; noora-hooks asks its own consent (noora-hooks approve)")
		}
	}
	b, err := json.Marshal(out) // events in name order: TOML tables have no other
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", file, err)
	}
	sort.Strings(notes)
	return b, notes, nil
}

// DefaultImportFile is the project's hooks file of a tool, relative to the
// working directory: for Codex CLI its hooks.json, else the [hooks] of its
// config.toml when only that exists.
func DefaultImportFile(dialect string) string {
	switch dialect {
	case Cursor:
		return filepath.Join(".cursor", "hooks.json")
	case Gemini:
		return filepath.Join(".gemini", "settings.json")
	case Codex:
		file := filepath.Join(".codex", "hooks.json")
		if _, err := os.Stat(file); err != nil {
			if toml := filepath.Join(".codex", "config.toml"); fileExists(toml) {
				return toml
			}
		}
		return file
	}
	return filepath.Join(".claude", "settings.json")
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
