// Package journal is the run journal: one JSON line per firing of an event in
// <home>/logs/runs.jsonl, saying which hooks were considered, which ran and
// how, which did not and why, and the combined answer (docs/journal.md). It
// answers "why did my hook (not) run?" after the fact.
//
// It must never delay an answer or grow without bound: records are built and
// written off the caller's path, dropped (and counted) when the queue is
// full, the file is size-capped with one rotated generation, and values that
// look like secrets are redacted before anything reaches the disk.
package journal

import (
	"bytes"
	"encoding/json"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/noora-hooks/noora-hooks/internal/dispatch"
	"github.com/noora-hooks/noora-hooks/protocol"
)

// Bounds of one record, so that one line stays readable and small.
const (
	// ExcerptBytes is how much of a hook's stdout and stderr a record keeps.
	ExcerptBytes = 256
	// KwargsBytes bounds the kwargs a record keeps; past it, values are
	// replaced by their size, then keys are left out and counted.
	KwargsBytes = 4 << 10
	// ValueBytes is the largest single kwarg value kept as it is.
	ValueBytes = 1 << 10
	// MaxLine bounds one line: a record over it loses its excerpts, then
	// its hooks past MaxHooks.
	MaxLine = 256 << 10
	// MaxHooks is how many hooks an oversized record keeps.
	MaxHooks = 100
)

// Record is one firing: one line of the journal.
type Record struct {
	Time time.Time `json:"time"`
	// Via is what fired it: exec, bridge, serve, test, gateway.
	Via   string `json:"via"`
	Event string `json:"event"`
	// Dialect and AgentEvent are set when another agent's payload was
	// read (exec --dialect): "claude" and "PreToolUse", say.
	Dialect    string          `json:"dialect,omitempty"`
	AgentEvent string          `json:"agent_event,omitempty"`
	Session    string          `json:"session,omitempty"`
	Tool       string          `json:"tool,omitempty"`
	Cwd        string          `json:"cwd,omitempty"`
	SafeMode   bool            `json:"safe_mode,omitempty"`
	Kwargs     json.RawMessage `json:"kwargs,omitempty"` // redacted, bounded
	Hooks      []Hook          `json:"hooks"`
	// HooksOmitted counts hooks left out of an oversized record.
	HooksOmitted int             `json:"hooks_omitted,omitempty"`
	Answer       json.RawMessage `json:"answer,omitempty"` // the combined answer, redacted
	DurationMS   float64         `json:"duration_ms"`
}

// Hook is one hook considered for a firing.
type Hook struct {
	Source string `json:"source"`
	Hook   string `json:"hook"`
	Where  string `json:"where,omitempty"`
	Ran    bool   `json:"ran"`
	// Reason and Detail say why a hook did not run (dispatch.SkipReason).
	Reason string `json:"reason,omitempty"`
	Detail string `json:"detail,omitempty"`
	// Drift: the hook's script changed since it was approved (SPEC §5).
	Drift      bool     `json:"drift,omitempty"`
	Status     string   `json:"status,omitempty"`
	ExitCode   *int     `json:"exit_code,omitempty"`
	DurationMS float64  `json:"duration_ms,omitempty"`
	Answer     string   `json:"answer,omitempty"` // the answer's kind: block, modify, context, ...
	Stdout     string   `json:"stdout,omitempty"`
	Stderr     string   `json:"stderr,omitempty"`
	Warnings   []string `json:"warnings,omitempty"`
}

// Blocked reports whether the firing's answer blocked a tool call (or
// skipped a gateway dispatch).
func (r Record) Blocked() bool {
	var a struct{ Action string }
	_ = json.Unmarshal(r.Answer, &a)
	return a.Action == "block" || a.Action == "skip"
}

// Firing is what a caller knows of one firing; the journal turns it into a
// Record off the caller's path.
type Firing struct {
	Time       time.Time
	Via        string
	Dialect    string
	AgentEvent string
	SafeMode   bool
	Event      string
	Kwargs     protocol.Kwargs
	Cwd        string
	Report     dispatch.Report
	Duration   time.Duration
	// Unregistered, when set in safe mode, lists the hooks that safe mode
	// kept from running; it is asked off the caller's path, and may read
	// a config that the firing itself did not.
	Unregistered func() []dispatch.Skip
}

// Build turns a firing into its record: hooks in the order they were
// considered (those that ran, or were refused by consent, in declaration
// order, then those their source passed over), redacted and bounded.
func Build(f Firing) Record {
	rec := Record{
		Time:       f.Time.UTC(),
		Via:        f.Via,
		Event:      f.Event,
		Dialect:    f.Dialect,
		AgentEvent: f.AgentEvent,
		Cwd:        f.Cwd,
		SafeMode:   f.SafeMode,
		DurationMS: ms(f.Duration),
		Hooks:      []Hook{},
	}
	rec.Tool, _ = protocol.ToolName(f.Kwargs)
	rec.Session = sessionOf(f.Kwargs)
	rec.Kwargs = bounded(f.Kwargs, "telemetry_schema_version")
	rec.Answer = bounded(f.Report.Combined.Object(), "")
	refused := map[dispatch.HookInfo]dispatch.Skip{}
	for _, s := range f.Report.Skips {
		if s.Reason == dispatch.SkipNotApproved || s.Reason == dispatch.SkipDialect {
			refused[s.Hook] = s
		}
	}
	for _, r := range f.Report.Results {
		h := Hook{Source: r.Source, Hook: r.Name, Where: r.Where}
		if r.Status == dispatch.StatusSkipped {
			if s, ok := refused[r.HookInfo]; ok {
				h.Reason, h.Detail = string(s.Reason), text(s.Detail)
				delete(refused, r.HookInfo)
			} else {
				h.Reason = "skipped"
			}
			rec.Hooks = append(rec.Hooks, h)
			continue
		}
		h.Ran = true
		h.Warnings = redactTexts(dispatch.Strings(r.Warnings))
		h.Status = string(r.Status)
		h.ExitCode = r.ExitCode
		h.DurationMS = ms(r.Duration)
		h.Answer = r.Answer.Kind.String()
		if r.Outcome != nil {
			h.Stdout = text(string(r.Outcome.Stdout))
			h.Stderr = text(string(r.Outcome.Stderr))
		}
		h.Drift = r.Drift != ""
		rec.Hooks = append(rec.Hooks, h)
	}
	skips := f.Report.Skips
	if f.SafeMode && f.Unregistered != nil {
		skips = append(skips[:len(skips):len(skips)], f.Unregistered()...)
	}
	for _, s := range skips {
		if _, ok := refused[s.Hook]; !ok && (s.Reason == dispatch.SkipNotApproved || s.Reason == dispatch.SkipDialect) {
			continue // reported with its result above
		}
		rec.Hooks = append(rec.Hooks, Hook{Source: s.Hook.Source, Hook: s.Hook.Name, Where: s.Where, Reason: string(s.Reason), Detail: text(s.Detail)})
	}
	sortHooks(rec.Hooks)
	return rec
}

// sortHooks puts hooks in declaration order (SPEC §3): plugins, shell hooks
// by their line in the config, outbound targets. The dispatcher lists the
// skipped after the run, the reader wants the config's order.
func sortHooks(hooks []Hook) {
	rank := map[string]int{"plugin": 0, "shell": 1, "outbound": 2}
	sort.SliceStable(hooks, func(i, j int) bool {
		a, b := hooks[i], hooks[j]
		if rank[a.Source] != rank[b.Source] {
			return rank[a.Source] < rank[b.Source]
		}
		if a.Source != "shell" {
			return false
		}
		return lineOf(a.Where) < lineOf(b.Where)
	})
}

// lineOf is N of a "file:N" location, 0 when there is none.
func lineOf(where string) int {
	i := strings.LastIndexByte(where, ':')
	if i < 0 {
		return 0
	}
	n, _ := strconv.Atoi(where[i+1:])
	return n
}

// Line is the record as one journal line, newline included, at most MaxLine
// bytes.
func (r Record) Line() []byte {
	b := r.encode()
	if len(b) < MaxLine {
		return append(b, '\n')
	}
	r.Kwargs = nil
	for i := range r.Hooks {
		r.Hooks[i].Stdout, r.Hooks[i].Stderr, r.Hooks[i].Detail, r.Hooks[i].Warnings = "", "", "", nil
	}
	if len(r.Hooks) > MaxHooks {
		r.HooksOmitted += len(r.Hooks) - MaxHooks
		r.Hooks = r.Hooks[:MaxHooks]
	}
	if b = r.encode(); len(b) >= MaxLine {
		r.Answer = json.RawMessage(`{"event":` + string(protocol.String(r.Event)) + `}`)
		b = r.encode()
	}
	return append(b, '\n')
}

// encode writes the record as json.Marshal would read it back (the struct
// tags are its schema), field by field rather than by reflection: exec's
// exit waits for this line, and on a cold process encoding/json's first
// look at a struct type costs more than the rest of the record together
// (docs/performance.md). Raw members are our own JSON, already compact.
func (r Record) encode() []byte {
	o := protocol.Object{
		{Key: "time", Value: protocol.String(r.Time.Format(time.RFC3339Nano))},
		{Key: "via", Value: protocol.String(r.Via)},
		{Key: "event", Value: protocol.String(r.Event)},
	}
	o = withString(o, "dialect", r.Dialect)
	o = withString(o, "agent_event", r.AgentEvent)
	o = withString(o, "session", r.Session)
	o = withString(o, "tool", r.Tool)
	o = withString(o, "cwd", r.Cwd)
	if r.SafeMode {
		o = append(o, protocol.Field{Key: "safe_mode", Value: jsonTrue})
	}
	if len(r.Kwargs) > 0 {
		o = append(o, protocol.Field{Key: "kwargs", Value: r.Kwargs})
	}
	hooks := make([]json.RawMessage, len(r.Hooks))
	for i, h := range r.Hooks {
		hooks[i] = h.encode()
	}
	o = append(o, protocol.Field{Key: "hooks", Value: array(hooks)})
	if r.HooksOmitted != 0 {
		o = append(o, protocol.Field{Key: "hooks_omitted", Value: json.RawMessage(strconv.Itoa(r.HooksOmitted))})
	}
	if len(r.Answer) > 0 {
		o = append(o, protocol.Field{Key: "answer", Value: r.Answer})
	}
	o = append(o, protocol.Field{Key: "duration_ms", Value: number(r.DurationMS)})
	b, _ := o.MarshalJSON() // an Object always encodes
	return b
}

func (h Hook) encode() json.RawMessage {
	o := protocol.Object{
		{Key: "source", Value: protocol.String(h.Source)},
		{Key: "hook", Value: protocol.String(h.Hook)},
	}
	o = withString(o, "where", h.Where)
	ran := jsonFalse
	if h.Ran {
		ran = jsonTrue
	}
	o = append(o, protocol.Field{Key: "ran", Value: ran})
	o = withString(o, "reason", h.Reason)
	o = withString(o, "detail", h.Detail)
	if h.Drift {
		o = append(o, protocol.Field{Key: "drift", Value: jsonTrue})
	}
	o = withString(o, "status", h.Status)
	if h.ExitCode != nil {
		o = append(o, protocol.Field{Key: "exit_code", Value: json.RawMessage(strconv.Itoa(*h.ExitCode))})
	}
	if h.DurationMS != 0 {
		o = append(o, protocol.Field{Key: "duration_ms", Value: number(h.DurationMS)})
	}
	o = withString(o, "answer", h.Answer)
	o = withString(o, "stdout", h.Stdout)
	o = withString(o, "stderr", h.Stderr)
	if len(h.Warnings) > 0 {
		warnings := make([]json.RawMessage, len(h.Warnings))
		for i, w := range h.Warnings {
			warnings[i] = protocol.String(w)
		}
		o = append(o, protocol.Field{Key: "warnings", Value: array(warnings)})
	}
	b, _ := o.MarshalJSON()
	return b
}

var (
	jsonTrue  = json.RawMessage("true")
	jsonFalse = json.RawMessage("false")
)

// withString adds key unless s is empty (omitempty).
func withString(o protocol.Object, key, s string) protocol.Object {
	if s == "" {
		return o
	}
	return append(o, protocol.Field{Key: key, Value: protocol.String(s)})
}

// number is a duration in milliseconds (a whole number of microseconds, as
// ms makes it) as encoding/json writes it: 12.3, 0.045, 7. Written from
// the integer: strconv's shortest float formatting costs a cold exec 25-40
// us of first use, more than the rest of a hook's entry.
func number(f float64) json.RawMessage {
	us := int64(math.Round(f * 1000))
	if us < 0 || float64(us) != f*1000 { // not what ms makes: let strconv say it
		return strconv.AppendFloat(nil, f, 'f', -1, 64)
	}
	b := strconv.AppendInt(nil, us/1000, 10)
	if frac := us % 1000; frac != 0 {
		b = append(b, '.', byte('0'+frac/100), byte('0'+frac/10%10), byte('0'+frac%10))
		b = bytes.TrimRight(b, "0")
	}
	return b
}

// array joins encoded values into a JSON array.
func array(items []json.RawMessage) json.RawMessage {
	b := []byte{'['}
	for i, v := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, v...)
	}
	return append(b, ']')
}

func ms(d time.Duration) float64 {
	return float64(d.Microseconds()) / 1000
}

// sessionOf is the session as a hook's payload names it (SPEC §4).
func sessionOf(kw protocol.Kwargs) string {
	for _, key := range []string{"session_id", "parent_session_id"} {
		if raw, ok := kw.Get(key); ok {
			var s string
			if json.Unmarshal(raw, &s) == nil && s != "" {
				return s
			}
		}
	}
	return ""
}

// text is the first ExcerptBytes of s, cut at a rune boundary, redacted:
// cut first, so that redaction never reads more than the bound.
func text(s string) string {
	if len(s) <= ExcerptBytes {
		return RedactText(s)
	}
	n := ExcerptBytes
	for n > 0 && s[n]&0xC0 == 0x80 { // a continuation byte: back to the rune's start
		n--
	}
	return RedactText(s[:n]) + "…"
}

// bounded is obj redacted, without the key skip, within KwargsBytes: values
// over ValueBytes are replaced by their size before anything reads them, and
// keys past the bound are counted under "…".
func bounded(obj protocol.Object, skip string) json.RawMessage {
	out := protocol.Object{}
	size, left := 2, 0
	for _, f := range obj {
		if f.Key == skip {
			continue
		}
		var v json.RawMessage
		if len(f.Value) > ValueBytes {
			v = protocol.String(sizeNote(len(f.Value)))
		} else {
			v = Redact(f.Value)
		}
		add := len(f.Key) + len(v) + 4
		if size+add > KwargsBytes || left > 0 {
			left++
			continue
		}
		size += add
		out = append(out, protocol.Field{Key: f.Key, Value: v})
	}
	if left > 0 {
		out = append(out, protocol.Field{Key: "…", Value: protocol.String(strconv.Itoa(left) + " more keys left out")})
	}
	b, err := out.MarshalJSON()
	if err != nil {
		return nil
	}
	return b
}

func sizeNote(n int) string { return "[" + strconv.Itoa(n) + " bytes]" }

func redactTexts(ss []string) []string {
	if len(ss) == 0 {
		return nil
	}
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = text(s)
	}
	return out
}
