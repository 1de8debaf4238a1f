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
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/noora-hooks/noora-hooks/internal/paths"
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
	// Root is the document, for the sections read on demand (GatewayHooks).
	Root *yaml.Node
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
	// JournalOff is `journal: false` (config/journal.go).
	JournalOff bool
	// Warnings about entries that were repaired or skipped, in file order.
	Warnings []Warning
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
	// Sequence names a group of hooks of one event that run one at a time,
	// in config order (Gemini CLI's `sequential: true`); the others run
	// concurrently. "" for none. Answers combine in config order either way.
	Sequence string
	// URL, when set, makes this a URL hook (config/urlhook.go): Command
	// holds the same URL, for consent and messages.
	URL            string
	Headers        []Header
	AllowedEnvVars []string
	// File and Line are where the entry starts; Index its position in the
	// event's list, from 1.
	File  string
	Line  int
	Index int
}

// Dialects are the values `dialect:` accepts (SPEC §11): the one list of
// dialect names. Their implementations live in package compat (which config
// must not import), keyed by these names; a compat test keeps the two equal.
var Dialects = []string{"claude", "cursor", "gemini", "codex"}

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
	// A key given twice keeps its last value, as PyYAML builds the dict.
	for _, p := range c.pairs("", root) {
		key, val := p.key, p.value
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
		case "journal":
			c.JournalOff = c.parseJournal(val)
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
	for _, p := range c.pairs("hooks.", hooks) {
		k, list := p.key, deref(p.value)
		event := k.Value
		if event == "outbound" {
			c.parseOutbound(list) // SPEC §7: targets, not an event
			continue
		}
		if event == "output_spill" {
			continue // the agent's own settings, not an event (SPEC §2)
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
			entry = deref(entry)
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
	h := ShellHook{Event: event, Timeout: DefaultTimeout, File: c.Path, Line: n.Line, Index: index}
	var command, failClosed, failClosedCamel, matcher, timeout, dialect, dialectEvent, stream *yaml.Node
	var urlNode, headers, allowedEnv, sequence *yaml.Node
	for _, p := range c.pairs(where+": ", n) {
		k, v := p.key, p.value
		switch k.Value {
		case "command":
			command = v
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
		case "sequence":
			sequence = v
		case "url":
			urlNode = v
		case "headers":
			headers = v
		case "allowed_env_vars":
			allowedEnv = v
		}
	}
	// The agent takes a command only when PyYAML made a string of it
	// (`command: 12345` is an integer, `command: yes` a boolean) and skips
	// the entry otherwise; so does noora-hooks, rather than run "12345".
	if command != nil {
		switch cmd := ReadScalar(command); cmd.Kind {
		case KindString:
			h.Command = protocol.PyStrip(cmd.Text)
		case KindNull:
		default:
			c.warn(command, "%s: command must be a string, got %s; skipped (quote it)", where, cmd.Describe())
			return ShellHook{}, false
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
	if sequence != nil {
		switch sc := ReadScalar(sequence); {
		case sc.Kind == KindString && protocol.PyStrip(sc.Text) != "":
			h.Sequence = protocol.PyStrip(sc.Text)
		case sc.Kind != KindNull:
			c.warn(sequence, "%s: sequence must be a name (a string), got %s; ignored, so the hook runs concurrently with the others", where, sc.Describe())
		}
	}
	if stream != nil {
		h.Stream = c.parseStreamEntry(where, event, h.Dialect, stream)
		if h.Stream && h.URL != "" {
			c.warn(stream, "%s: stream does not apply to a URL hook; ignored (each event is one request)", where)
			h.Stream = false
		}
	}
	if matcher != nil {
		// Only a string is a matcher to the agent: `matcher: 5` or `true`
		// is ignored there and the hook runs for every tool; here too.
		src := ""
		switch m := ReadScalar(matcher); m.Kind {
		case KindString:
			src = protocol.PyStrip(m.Text)
			if src == "*" && h.Dialect == "" {
				// Claude Code's habit: "*" (like a blank) matches every
				// tool; as a pattern it would not even compile (SPEC §2).
				src = ""
			}
		case KindNull:
		default:
			c.warn(matcher, "%s: matcher must be a string, got %s; ignored, so the hook runs for every tool (quote it to match by it)", where, m.Describe())
		}
		if src != "" {
			// A dialect hook's matcher follows that tool's rules, which allow
			// matchers on more events (Claude's SessionStart source, say): the
			// dialect decides what it filters.
			if ev, _ := protocol.Lookup(event); !ev.ToolScoped() && h.Dialect == "" {
				c.warn(matcher, "%s: matcher applies only to pre_tool_call and post_tool_call; dropped", where)
			} else {
				h.Matcher = NewMatcher(src)
				if h.Matcher.Literal() && h.Dialect == "" {
					// The agent warns too; Python's re may compile what RE2
					// refuses (look-around, back-references): SPEC §13.
					_, err := regexp.Compile(`^(?:` + src + `)$`)
					c.warn(matcher, "%s: matcher %q is not a regular expression noora-hooks reads (%v); compared as literal text", where, src, err)
				}
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
			c.warn(fc, "%s: fail_closed must be a boolean, got %s; treated as false", where, ReadScalar(fc).Describe())
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

// boolValue reads a YAML 1.1 boolean (true, yes, on, ...), as PyYAML does;
// anything else, a quoted "true" included, is not one.
func boolValue(n *yaml.Node) (bool, bool) {
	s := ReadScalar(n)
	return s.Bool, s.Kind == KindBool
}

// parseTimeout reads a hook's timeout as the agent does: Python's int() of
// the value, so 1.9 is 1 s, true is 1 s and "0x1" or 1e0 (a string to YAML
// 1.1) is no number; then under 1 gives the default and over the maximum is
// clamped. A fraction or a boolean is read the same way, with a warning.
func (c *Config) parseTimeout(where string, n *yaml.Node) time.Duration {
	def, high := int64(DefaultTimeout/time.Second), int64(MaxTimeout/time.Second)
	s := ReadScalar(n)
	i, outcome := pyInt(s)
	switch {
	case outcome == intOverflow:
		c.warn(n, "%s: timeout %s cannot be read as a number of seconds (the agent fails to load its hooks over it); using %d", where, s.Describe(), def)
		return DefaultTimeout
	case outcome != intOK:
		c.warn(n, "%s: timeout %s is not a whole number of seconds; using %d", where, s.Describe(), def)
		return DefaultTimeout
	case i.Cmp(big.NewInt(1)) < 0:
		c.warn(n, "%s: timeout %s is under 1 second; using %d", where, n.Value, def)
		return DefaultTimeout
	case i.Cmp(big.NewInt(high)) > 0:
		c.warn(n, "%s: timeout %s is over the maximum; clamped to %d", where, n.Value, high)
		return MaxTimeout
	case s.Kind == KindBool || (s.Kind == KindFloat && s.Float != math.Trunc(s.Float)):
		c.warn(n, "%s: timeout %s is not a whole number of seconds; read as %s, as the agent reads it", where, s.Describe(), i)
	}
	return time.Duration(i.Int64()) * time.Second
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

// intValue reads a whole number written as a YAML 1.1 integer (0x1f, 1_000
// and 1:30 included), a float with no fraction, or a string that Python's
// int() reads. Booleans and fractions are refused: for noora-hooks' own
// settings there is no other reader to agree with, and a fraction is more
// likely a mistake than a wish. Integers beyond int64 saturate, for the
// caller to clamp.
func intValue(n *yaml.Node) (int64, bool) {
	s := ReadScalar(n)
	var i *big.Int
	switch s.Kind {
	case KindInt:
		i = s.Int
	case KindFloat:
		if math.IsInf(s.Float, 0) || math.IsNaN(s.Float) || s.Float != math.Trunc(s.Float) {
			return 0, false
		}
		i, _ = big.NewFloat(s.Float).Int(nil)
	case KindString:
		var ok bool
		if i, ok = pyIntString(s.Text); !ok {
			return 0, false
		}
	default:
		return 0, false
	}
	switch {
	case i.IsInt64():
		return i.Int64(), true
	case i.Sign() > 0:
		return math.MaxInt64, true
	}
	return math.MinInt64, true
}

// parseAutoAccept reads hooks_auto_accept as the agent does
// (_resolve_effective_accept): a boolean is itself, a string is true when it
// is 1, true, yes or on; anything else, the integer 1 included, is false.
func (c *Config) parseAutoAccept(n *yaml.Node) bool {
	switch s := ReadScalar(n); s.Kind {
	case KindBool:
		return s.Bool
	case KindString:
		return Truthy(s.Text)
	case KindNull:
		return false
	default:
		c.warn(n, "hooks_auto_accept must be a boolean, got %s; treated as false, as the agent does", s.Describe())
		return false
	}
}

func (c *Config) parseConcurrency(n *yaml.Node) int {
	return int(c.wholeNumber(n, "hooks_concurrency", "", 1, DefaultConcurrency, MaxConcurrency))
}

// Truthy reads an environment switch: 1, true, yes, on in any case, blanks
// (Python's set) ignored (SPEC §1).
func Truthy(s string) bool {
	switch strings.ToLower(protocol.PyStrip(s)) {
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
	home = paths.ExpandTilde(home)
	cfg := configFlag
	if cfg == "" {
		cfg = filepath.Join(home, "config.yaml")
	}
	return Paths{Home: home, Config: paths.ExpandTilde(cfg)}, nil
}

// Allowlist is where approvals are kept.
func (p Paths) Allowlist() string { return filepath.Join(p.Home, "shell-hooks-allowlist.json") }
