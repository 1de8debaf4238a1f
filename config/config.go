// Package config reads noora-hooks' configuration (SPEC §1, §2) and hands the
// rest of the program typed, already-validated values. It is the only place that
// knows the YAML layout. A bad entry never aborts parsing: it is repaired or
// skipped with a Warning; only a YAML syntax error is fatal.
package config

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/noora-hooks/noora-hooks/protocol"
)

// Limits of SPEC §2.
const (
	DefaultTimeout     = 60 * time.Second
	MaxTimeout         = 300 * time.Second
	DefaultConcurrency = 32
	MaxConcurrency     = 256
	// MaxFileSize bounds the config file we read: a config is written by hand.
	MaxFileSize = 8 << 20
)

// Config is a parsed configuration file.
type Config struct {
	// Path is the file that was read (it may not exist).
	Path string
	// Exists is false when the file was missing: no hooks, no error.
	Exists bool
	// ShellHooks in config order, duplicates removed.
	ShellHooks []ShellHook
	// AutoAccept is hooks_auto_accept.
	AutoAccept bool
	// Concurrency is hooks_concurrency: how many hooks of one event run at once.
	Concurrency int
	// Plugins is the `plugins:` section (config/plugins.go).
	Plugins PluginSettings
	// Outbound are the hooks.outbound webhook targets, in config order (SPEC §7).
	Outbound []OutboundTarget
	// OutboundSpoolLimit is outbound_spool_limit; 0 means the default (see SpoolLimit).
	OutboundSpoolLimit int
	// Stream is hooks_stream_queue_size and hooks_stream_idle_timeout
	// (config/stream.go).
	Stream StreamSettings
	// Warnings about entries that were repaired or skipped, in file order.
	Warnings []Warning
	// Root is the document, for sections parsed elsewhere in this package.
	Root *yaml.Node
}

// ShellHook is one validated `hooks.<event>[i]` entry.
type ShellHook struct {
	Event      string
	Matcher    *Matcher // nil: every tool
	Command    string
	Timeout    time.Duration
	FailClosed bool
	// Dialect is the hook protocol the command speaks: "" for Noora's (SPEC
	// §4), or one of Dialects for a script written for Claude Code or Cursor
	// (SPEC §11). DialectEvent optionally names the event in that tool's
	// vocabulary the entry was imported from (e.g. PostToolUseFailure); it
	// narrows when the hook runs and is checked by the dialect, not here.
	Dialect      string
	DialectEvent string
	// Stream: one long-lived process per session reads every stream event
	// as one line of JSON (config/stream.go).
	Stream bool
	// URL, when set, makes this a URL hook (config/urlhook.go): Command
	// holds the same URL, for consent and messages.
	URL            string
	Headers        []Header
	AllowedEnvVars []string
	// Line is where the entry starts in the file; Index its position in the
	// event's list, from 1.
	Line  int
	Index int
}

// Dialects are the values `dialect:` accepts (SPEC §11). Their implementations
// live in package compat, which config must not import.
var Dialects = []string{"claude", "cursor"}

func knownDialect(d string) bool {
	for _, k := range Dialects {
		if k == d {
			return true
		}
	}
	return false
}

// Matcher tests a tool name against a hook's `matcher:`.
type Matcher struct {
	Source string
	re     *regexp.Regexp // nil: compare Source literally
}

// NewMatcher compiles a matcher. It must match the WHOLE tool name; a pattern
// that does not compile is compared as a literal string (SPEC §2).
func NewMatcher(source string) *Matcher {
	m := &Matcher{Source: source}
	if re, err := regexp.Compile(`^(?:` + source + `)$`); err == nil {
		m.re = re
	}
	return m
}

// Literal reports whether the pattern failed to compile and is compared as text.
func (m *Matcher) Literal() bool { return m.re == nil }

// Match reports whether the matcher accepts toolName. A missing tool name
// (ok=false) never matches.
func (m *Matcher) Match(toolName string, ok bool) bool {
	if m == nil {
		return true
	}
	if !ok {
		return false
	}
	if m.re == nil {
		return toolName == m.Source
	}
	return m.re.MatchString(toolName)
}

// Warning is a problem in the config that was repaired or skipped.
type Warning struct {
	File string
	Line int
	Msg  string
}

func (w Warning) String() string {
	if w.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", w.File, w.Line, w.Msg)
	}
	return fmt.Sprintf("%s: %s", w.File, w.Msg)
}

// SyntaxError is a YAML file that cannot be read at all.
type SyntaxError struct {
	File      string
	Line, Col int
	Msg       string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

// Load reads and parses the config file at path. A missing file is an empty
// config. Errors are I/O errors and *SyntaxError.
func Load(path string) (*Config, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return &Config{Path: path, Concurrency: DefaultConcurrency}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("read config %s: %w", path, err)
	}
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("read config %s: larger than %d MiB; is it the right file?", path, MaxFileSize>>20)
	}
	return Parse(path, data)
}

// Parse parses config text; path is used in messages only.
func Parse(path string, data []byte) (*Config, error) {
	c := &Config{Path: path, Exists: true, Concurrency: DefaultConcurrency}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, syntaxError(path, data, err)
	}
	if len(doc.Content) == 0 {
		return c, nil // empty file
	}
	root := doc.Content[0]
	c.Root = root
	if root.Kind != yaml.MappingNode {
		if !isNullNode(root) {
			c.warn(root, "the config is not a mapping of settings; ignoring it")
		}
		return c, nil
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		key, val := root.Content[i], root.Content[i+1]
		switch key.Value {
		case "hooks":
			c.parseHooks(val)
		case "hooks_auto_accept":
			c.AutoAccept = c.parseAutoAccept(val)
		case "hooks_concurrency":
			c.Concurrency = c.parseConcurrency(val)
		case "plugins":
			c.Plugins = c.parsePlugins(val)
		case "outbound_spool_limit":
			c.OutboundSpoolLimit = c.parseSpoolLimit(val)
		case "hooks_stream_queue_size", "hooks_stream_idle_timeout":
			c.parseStreamSetting(key.Value, val)
		}
	}
	// Warnings read top to bottom, like the file.
	sort.SliceStable(c.Warnings, func(i, j int) bool { return c.Warnings[i].Line < c.Warnings[j].Line })
	return c, nil
}

func (c *Config) warn(n *yaml.Node, format string, args ...any) {
	line := 0
	if n != nil {
		line = n.Line
	}
	c.Warnings = append(c.Warnings, Warning{File: c.Path, Line: line, Msg: fmt.Sprintf(format, args...)})
}

func isNullNode(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

func (c *Config) parseHooks(hooks *yaml.Node) {
	if isNullNode(hooks) {
		return
	}
	if hooks.Kind != yaml.MappingNode {
		c.warn(hooks, "hooks: expected a mapping of event names to lists of hooks; ignoring it")
		return
	}
	type key struct{ event, matcher, command, dialect, dialectEvent string }
	seen := map[key]bool{}
	for i := 0; i+1 < len(hooks.Content); i += 2 {
		k, list := hooks.Content[i], hooks.Content[i+1]
		event := k.Value
		if event == "outbound" {
			c.parseOutbound(list) // SPEC §7: targets, not an event
			continue
		}
		if _, ok := protocol.Lookup(event); !ok {
			c.warn(k, "hooks: unknown event %q skipped; %s", event, Suggest(event))
			continue
		}
		if event == protocol.TransformAPIErrorClassification {
			c.warn(k, "hooks: %s cannot be a shell hook (plugins only); its entries are skipped", event)
			continue
		}
		if isNullNode(list) {
			continue
		}
		if list.Kind != yaml.SequenceNode {
			c.warn(list, "hooks.%s: expected a list of hook entries; skipped", event)
			continue
		}
		for j, entry := range list.Content {
			h, ok := c.parseEntry(event, j+1, entry)
			if !ok {
				continue
			}
			matcher := ""
			if h.Matcher != nil {
				matcher = h.Matcher.Source
			}
			kk := key{event, matcher, h.Command, h.Dialect, h.DialectEvent}
			if seen[kk] {
				c.warn(entry, "%s entry %d: duplicate of an earlier entry with the same matcher and command; it runs once", event, j+1)
				continue
			}
			seen[kk] = true
			c.ShellHooks = append(c.ShellHooks, h)
		}
	}
}

// Suggest is the tail of an unknown-event message: a close valid name, or the
// sorted list of every valid one.
func Suggest(event string) string {
	if best, ok := protocol.Closest(event); ok {
		return fmt.Sprintf("did you mean %q?", best)
	}
	return "valid events: " + strings.Join(protocol.EventNames(), ", ")
}

func (c *Config) parseEntry(event string, index int, n *yaml.Node) (ShellHook, bool) {
	where := fmt.Sprintf("%s entry %d", event, index)
	if n.Kind != yaml.MappingNode {
		c.warn(n, "%s: expected a mapping with a command; skipped", where)
		return ShellHook{}, false
	}
	h := ShellHook{Event: event, Timeout: DefaultTimeout, Line: n.Line, Index: index}
	var failClosed, failClosedCamel, matcher, timeout, dialect, dialectEvent, stream *yaml.Node
	var urlNode, headers, allowedEnv *yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch k.Value {
		case "command":
			if v.Kind == yaml.ScalarNode && !isNullNode(v) {
				h.Command = strings.TrimSpace(v.Value)
			}
		case "matcher":
			matcher = v
		case "timeout":
			timeout = v
		case "fail_closed":
			failClosed = v
		case "failClosed":
			failClosedCamel = v
		case "dialect":
			dialect = v
		case "dialect_event":
			dialectEvent = v
		case "stream":
			stream = v
		case "url":
			urlNode = v
		case "headers":
			headers = v
		case "allowed_env_vars":
			allowedEnv = v
		}
	}
	if urlNode != nil {
		if h.Command != "" {
			c.warn(n, "%s: has both command and url; a hook is one or the other; skipped", where)
			return ShellHook{}, false
		}
		if !c.parseURLHook(where, &h, urlNode, headers, allowedEnv) {
			return ShellHook{}, false
		}
	}
	if h.Command == "" {
		c.warn(n, "%s: no command; skipped", where)
		return ShellHook{}, false
	}
	if dialect != nil {
		d, ok := scalarString(dialect)
		d = strings.TrimSpace(d)
		switch {
		case !ok:
			c.warn(dialect, "%s: dialect must be a string (one of %s); skipped", where, strings.Join(Dialects, ", "))
			return ShellHook{}, false
		case d != "" && !knownDialect(d):
			c.warn(dialect, "%s: unknown dialect %q (valid: %s); skipped", where, d, strings.Join(Dialects, ", "))
			return ShellHook{}, false
		}
		h.Dialect = d
	}
	if dialectEvent != nil {
		ev, ok := scalarString(dialectEvent)
		switch {
		case !ok:
			c.warn(dialectEvent, "%s: dialect_event must be a string; ignored", where)
		case h.Dialect == "" && strings.TrimSpace(ev) != "":
			c.warn(dialectEvent, "%s: dialect_event applies only with dialect; ignored", where)
		default:
			h.DialectEvent = strings.TrimSpace(ev)
		}
	}
	if timeout != nil {
		h.Timeout = c.parseTimeout(where, timeout)
	}
	if stream != nil {
		h.Stream = c.parseStreamEntry(where, event, h.Dialect, stream)
		if h.Stream && h.URL != "" {
			c.warn(stream, "%s: stream does not apply to a URL hook; ignored (each event is one request)", where)
			h.Stream = false
		}
	}
	if matcher != nil {
		src := ""
		if matcher.Kind == yaml.ScalarNode && !isNullNode(matcher) {
			src = strings.TrimSpace(matcher.Value)
		} else if !isNullNode(matcher) {
			c.warn(matcher, "%s: matcher must be a string; ignored", where)
		}
		if src != "" {
			// A dialect hook's matcher follows that tool's rules, which allow
			// matchers on more events (Claude's SessionStart source, say): the
			// dialect decides what it filters.
			if ev, _ := protocol.Lookup(event); !ev.ToolScoped() && h.Dialect == "" {
				c.warn(matcher, "%s: matcher applies only to pre_tool_call and post_tool_call; dropped", where)
			} else {
				h.Matcher = NewMatcher(src)
			}
		}
	}
	// fail_closed wins over failClosed, even when false (SPEC §2).
	fc := failClosed
	if fc == nil {
		fc = failClosedCamel
	}
	if fc != nil {
		v, ok := boolValue(fc)
		if !ok {
			c.warn(fc, "%s: fail_closed must be true or false, got %q; treated as false", where, fc.Value)
		}
		if v && event != protocol.PreToolCall {
			c.warn(fc, "%s: fail_closed applies only to pre_tool_call; ignored", where)
			v = false
		}
		h.FailClosed = v
	}
	return h, true
}

// scalarString reads a scalar as text; null reads as "".
func scalarString(n *yaml.Node) (string, bool) {
	if isNullNode(n) {
		return "", true
	}
	if n.Kind != yaml.ScalarNode {
		return "", false
	}
	return n.Value, true
}

func boolValue(n *yaml.Node) (bool, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
		return false, false
	}
	var b bool
	if err := n.Decode(&b); err != nil {
		return false, false
	}
	return b, true
}

func (c *Config) parseTimeout(where string, n *yaml.Node) time.Duration {
	return c.seconds(n, where+": timeout", 1, DefaultTimeout, MaxTimeout)
}

// wholeNumber reads a whole-number setting named what: a value that is not
// one, or is under low, warns and gives def; one over high warns and is
// clamped. unit ("seconds", or "") only words the warning.
func (c *Config) wholeNumber(n *yaml.Node, what, unit string, low, def, high int64) int64 {
	v, ok := intValue(n)
	switch {
	case !ok || v < low:
		if unit != "" {
			unit = " of " + unit
		}
		c.warn(n, "%s %q is not a whole number%s of at least %d; using %d", what, n.Value, unit, low, def)
		return def
	case v > high:
		c.warn(n, "%s %d is over the maximum; clamped to %d", what, v, high)
		return high
	}
	return v
}

// seconds is wholeNumber for a duration in whole seconds.
func (c *Config) seconds(n *yaml.Node, what string, low int64, def, high time.Duration) time.Duration {
	return time.Duration(c.wholeNumber(n, what, "seconds", low, int64(def/time.Second), int64(high/time.Second))) * time.Second
}

// intValue reads a scalar that holds a whole number, written as an integer, a
// quoted integer, or a float with no fraction.
func intValue(n *yaml.Node) (int64, bool) {
	if n.Kind != yaml.ScalarNode || isNullNode(n) {
		return 0, false
	}
	s := strings.TrimSpace(n.Value)
	if i, err := strconv.ParseInt(s, 0, 64); err == nil {
		return i, true
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) && f == math.Trunc(f) && math.Abs(f) < 1e12 {
		return int64(f), true
	}
	return 0, false
}

func (c *Config) parseAutoAccept(n *yaml.Node) bool {
	if b, ok := boolValue(n); ok {
		return b
	}
	if n.Kind == yaml.ScalarNode && !isNullNode(n) {
		return Truthy(n.Value)
	}
	c.warn(n, "hooks_auto_accept must be a boolean; treated as false")
	return false
}

func (c *Config) parseConcurrency(n *yaml.Node) int {
	return int(c.wholeNumber(n, "hooks_concurrency", "", 1, DefaultConcurrency, MaxConcurrency))
}

// Truthy reads an environment switch: 1, true, yes, on in any case, blanks
// ignored (SPEC §1).
func Truthy(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// Paths says where noora-hooks keeps its files.
type Paths struct {
	Home   string
	Config string
}

// Resolve applies SPEC §1: --home, else $NOORA_HOME, else ~/.noora; --config,
// else <home>/config.yaml. getenv is os.Getenv in production.
func Resolve(homeFlag, configFlag string, getenv func(string) string) (Paths, error) {
	home := homeFlag
	if home == "" {
		home = getenv("NOORA_HOME")
	}
	if home == "" {
		userHome, err := os.UserHomeDir()
		if err != nil {
			return Paths{}, fmt.Errorf("find home directory: %w (set NOORA_HOME or pass --home)", err)
		}
		home = filepath.Join(userHome, ".noora")
	}
	home = ExpandTilde(home)
	cfg := configFlag
	if cfg == "" {
		cfg = filepath.Join(home, "config.yaml")
	}
	return Paths{Home: home, Config: ExpandTilde(cfg)}, nil
}

// ExpandTilde expands a leading "~" or "~/" to the user's home directory.
func ExpandTilde(p string) string {
	if p != "~" && !strings.HasPrefix(p, "~/") {
		return p
	}
	userHome, err := os.UserHomeDir()
	if err != nil {
		return p
	}
	return filepath.Join(userHome, p[1:])
}

// Allowlist is where approvals are kept.
func (p Paths) Allowlist() string { return filepath.Join(p.Home, "shell-hooks-allowlist.json") }
