// Package wire is the noora-hooks plugin protocol, version 1
// (docs/plugin-protocol.md): line-delimited JSON between noora-hooks and a
// plugin process. It encodes the requests noora-hooks sends and parses, as
// hostile input, every line a plugin sends back. It is pure: no processes, no
// files, no logging.
package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/noora-hooks/noora-hooks/protocol"
)

// Version is the protocol version this noora-hooks speaks.
const Version = 1

// Line bounds (docs/plugin-protocol.md, "Limits").
const (
	// MaxMessage bounds one line a plugin sends, newline excluded: the same
	// 1 MiB a shell hook's stdout may hold.
	MaxMessage = 1 << 20
	// MaxRequest bounds one line noora-hooks sends: the largest kwargs `exec`
	// accepts (64 MiB) plus room for the envelope.
	MaxRequest = 64<<20 + 64<<10
)

// Limits on what one hello may declare: far above any real plugin, low
// enough that a hostile one cannot make noora-hooks allocate without bound.
const (
	MaxHooks    = 1024
	MaxSections = 1024
	MaxWarnings = 64
	MaxName     = 256 // bytes of a plugin or callback name kept
	MaxText     = 4096
)

// Message types a plugin sends.
const (
	TypeHello  = "hello"
	TypeResult = "result"
	TypeError  = "error"
	TypeFatal  = "fatal"
)

// Message is one parsed line from a plugin. Which fields are set depends on Type.
type Message struct {
	Type string
	// ID is the request a result or error answers (result, error).
	ID int64

	// hello
	Protocol int
	Hooks    []HookDecl
	Sections []SectionDecl
	Warnings []string

	// Value is a result's JSON value; null when the callback returned nothing.
	Value gjson.Result

	// Error says what went wrong (error, fatal); Where is where, when known
	// (e.g. "__init__.py:12 in explode").
	Error string
	Where string
}

// HookDecl is one registered callback: its event and, for messages, its name.
type HookDecl struct {
	Event    string
	Callback string
}

// SectionDecl is one registered system prompt section. The values are as the
// plugin gave them; the rules of SPEC §10 are applied by the renderer.
type SectionDecl struct {
	ID       gjson.Result // should be a string
	Position gjson.Result // absent means after_memory
	MaxChars gjson.Result // absent means the cap
}

// IDString returns the section id when it is a string.
func (s SectionDecl) IDString() (string, bool) {
	if s.ID.Type != gjson.String {
		return "", false
	}
	return s.ID.String(), true
}

// ErrProtocol marks a line that breaks the protocol.
var ErrProtocol = errors.New("plugin protocol violation")

func violation(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrProtocol, fmt.Sprintf(format, args...))
}

// Parse reads one line from a plugin. Everything is checked: the line is
// valid JSON, an object, of a known type, with fields of the right types.
// Unknown fields are ignored, so that later protocol versions can add some.
func Parse(line []byte) (Message, error) {
	if len(line) > MaxMessage {
		return Message{}, violation("a message is %d bytes, over the %d-byte limit", len(line), MaxMessage)
	}
	line = bytes.TrimSpace(line)
	if err := protocol.CheckDepth(line); err != nil {
		return Message{}, fmt.Errorf("%w: %w", ErrProtocol, err)
	}
	if !gjson.ValidBytes(line) {
		return Message{}, violation("a line is not valid JSON: %s", excerpt(line))
	}
	v := gjson.ParseBytes(line)
	if !v.IsObject() {
		return Message{}, violation("a message must be a JSON object: %s", excerpt(line))
	}
	typ := member(v, "type")
	if typ.Type != gjson.String {
		return Message{}, violation(`a message has no string "type": %s`, excerpt(line))
	}
	m := Message{Type: typ.String()}
	switch m.Type {
	case TypeHello:
		return parseHello(v, m)
	case TypeResult:
		id, err := parseID(v)
		if err != nil {
			return Message{}, err
		}
		m.ID = id
		m.Value = member(v, "value")
		if !m.Value.Exists() {
			m.Value = gjson.Parse("null")
		}
		return m, nil
	case TypeError, TypeFatal:
		if m.Type == TypeError {
			id, err := parseID(v)
			if err != nil {
				return Message{}, err
			}
			m.ID = id
		}
		m.Error = text(member(v, "error"), MaxText)
		if m.Error == "" {
			m.Error = "(no error message)"
		}
		m.Where = text(member(v, "where"), MaxName)
		return m, nil
	}
	return Message{}, violation("unknown message type %q", clip(m.Type, MaxName))
}

func parseID(v gjson.Result) (int64, error) {
	id := member(v, "id")
	if id.Type != gjson.Number {
		return 0, violation(`a %s message has no numeric "id"`, member(v, "type").String())
	}
	n, err := strconv.ParseInt(id.Raw, 10, 64)
	if err != nil || n < 1 {
		return 0, violation(`"id" must be a whole number of at least 1, got %s`, clip(id.Raw, 40))
	}
	return n, nil
}

func parseHello(v gjson.Result, m Message) (Message, error) {
	p := member(v, "protocol")
	if p.Type != gjson.Number {
		return Message{}, violation(`the hello has no numeric "protocol" version`)
	}
	f := p.Float()
	if f != math.Trunc(f) || f < 0 || f > math.MaxInt32 {
		return Message{}, violation(`the hello's "protocol" must be a whole number, got %s`, clip(p.Raw, 40))
	}
	m.Protocol = int(f)
	if m.Protocol != Version {
		// The rest may follow rules we do not know: stop here.
		return m, nil
	}
	hooks := member(v, "hooks")
	switch {
	case !hooks.Exists() || hooks.Type == gjson.Null:
	case !hooks.IsArray():
		return Message{}, violation(`the hello's "hooks" must be an array`)
	default:
		arr := hooks.Array()
		if len(arr) > MaxHooks {
			return Message{}, violation("the hello declares %d hooks, over the limit of %d", len(arr), MaxHooks)
		}
		for i, h := range arr {
			d, err := parseHookDecl(h)
			if err != nil {
				return Message{}, violation("hook %d: %v", i+1, err)
			}
			m.Hooks = append(m.Hooks, d)
		}
	}
	sections := member(v, "sections")
	switch {
	case !sections.Exists() || sections.Type == gjson.Null:
	case !sections.IsArray():
		return Message{}, violation(`the hello's "sections" must be an array`)
	default:
		arr := sections.Array()
		if len(arr) > MaxSections {
			return Message{}, violation("the hello declares %d sections, over the limit of %d", len(arr), MaxSections)
		}
		for i, s := range arr {
			if !s.IsObject() {
				return Message{}, violation("section %d must be an object", i+1)
			}
			m.Sections = append(m.Sections, SectionDecl{
				ID: member(s, "id"), Position: member(s, "position"), MaxChars: member(s, "max_chars"),
			})
		}
	}
	if w := member(v, "warnings"); w.IsArray() {
		for _, s := range w.Array() {
			if len(m.Warnings) == MaxWarnings {
				break
			}
			if t := text(s, MaxText); t != "" {
				m.Warnings = append(m.Warnings, t)
			}
		}
	}
	return m, nil
}

// parseHookDecl accepts {"event": "...", "callback": "..."} or a bare event name.
func parseHookDecl(h gjson.Result) (HookDecl, error) {
	if h.Type == gjson.String {
		return HookDecl{Event: clip(h.String(), MaxName)}, nil
	}
	if !h.IsObject() {
		return HookDecl{}, errors.New(`must be an event name or {"event": ..., "callback": ...}`)
	}
	ev := member(h, "event")
	if ev.Type != gjson.String {
		return HookDecl{}, errors.New(`has no string "event"`)
	}
	return HookDecl{Event: clip(ev.String(), MaxName), Callback: text(member(h, "callback"), MaxName)}, nil
}

// text returns a string member, cut to limit bytes on a rune boundary; ""
// for anything that is not a string.
func text(v gjson.Result, limit int) string {
	if v.Type != gjson.String {
		return ""
	}
	return clip(v.String(), limit)
}

func clip(s string, limit int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !isRuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

func excerpt(line []byte) string {
	return strconv.Quote(clip(string(line), 120))
}

// member reads a top-level key literally (no gjson path syntax).
func member(v gjson.Result, key string) gjson.Result {
	var out gjson.Result
	v.ForEach(func(k, val gjson.Result) bool {
		if k.String() == key {
			out = val // the last one wins, as in Python's json module
		}
		return true
	})
	return out
}

// Invoke encodes a request to run the index-th callback (from 0, in
// registration order) that the plugin registered for hook. cwd is the
// caller's working directory for this call.
func Invoke(id int64, hook string, index int, kwargs json.RawMessage, cwd string) []byte {
	if len(kwargs) == 0 {
		kwargs = json.RawMessage("{}")
	}
	return line(protocol.Object{
		{Key: "type", Value: protocol.String("invoke")},
		{Key: "id", Value: protocol.Raw(id)},
		{Key: "hook", Value: protocol.String(hook)},
		{Key: "callback", Value: protocol.Raw(index)},
		{Key: "cwd", Value: protocol.String(cwd)},
		{Key: "kwargs", Value: kwargs},
	})
}

// Section encodes a request to render the section registered under id.
func Section(id int64, section string, sessionInfo protocol.Object) []byte {
	if sessionInfo == nil {
		sessionInfo = protocol.Object{}
	}
	return line(protocol.Object{
		{Key: "type", Value: protocol.String("section")},
		{Key: "id", Value: protocol.Raw(id)},
		{Key: "section", Value: protocol.String(section)},
		{Key: "session_info", Value: protocol.Raw(sessionInfo)},
	})
}

func line(o protocol.Object) []byte {
	b, _ := o.MarshalJSON()
	return append(b, '\n')
}

// Hello encodes a hello, for plugins written in Go and for tests.
func Hello(hooks []HookDecl, sections []json.RawMessage, warnings []string) []byte {
	hs := make([]protocol.Object, 0, len(hooks))
	for _, h := range hooks {
		o := protocol.Object{{Key: "event", Value: protocol.String(h.Event)}}
		if h.Callback != "" {
			o = append(o, protocol.Field{Key: "callback", Value: protocol.String(h.Callback)})
		}
		hs = append(hs, o)
	}
	if sections == nil {
		sections = []json.RawMessage{}
	}
	if warnings == nil {
		warnings = []string{}
	}
	return line(protocol.Object{
		{Key: "type", Value: protocol.String(TypeHello)},
		{Key: "protocol", Value: protocol.Raw(Version)},
		{Key: "hooks", Value: protocol.Raw(hs)},
		{Key: "sections", Value: protocol.Raw(sections)},
		{Key: "warnings", Value: protocol.Raw(warnings)},
	})
}
