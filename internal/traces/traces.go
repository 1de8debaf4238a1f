// Package traces turns the run journal's records into OpenTelemetry spans,
// one per firing with a child per hook that ran, and encodes them for an
// OTLP/HTTP collector. Spans are never sent from here: the caller spools
// them through the outbound webhooks' durable spool, and serve or the
// background sender exports them, so that export never slows an answer.
// It must never import the OpenTelemetry SDK or protobuf runtime: every
// exec would pay their start-up (docs/journal.md, Traces).
package traces

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/noora-hooks/noora-hooks/internal/journal"
	"github.com/noora-hooks/noora-hooks/internal/outbound"
)

// Kind and status codes of opentelemetry-proto.
const (
	KindInternal = 1

	StatusUnset = 0
	StatusOK    = 1
	StatusError = 2
)

// Span is one span to export.
type Span struct {
	TraceID       [16]byte
	SpanID        [8]byte
	ParentID      [8]byte // zero: a root span
	Name          string
	Kind          int
	Start, End    time.Time
	Attrs         []Attr
	Status        int
	StatusMessage string
}

// Exporter is where spans go, from the standard OpenTelemetry environment.
type Exporter struct {
	// URL receives OTLP/HTTP protobuf posts: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
	// as it is, else OTEL_EXPORTER_OTLP_ENDPOINT + "/v1/traces".
	URL     string
	Service string // OTEL_SERVICE_NAME, else "noora-hooks"
	// Headers go with every export: OTEL_EXPORTER_OTLP_TRACES_HEADERS, else
	// OTEL_EXPORTER_OTLP_HEADERS.
	Headers []outbound.Header
}

// FromEnv returns the exporter the environment configures, or nil when
// tracing is off: no endpoint, OTEL_SDK_DISABLED=true, or
// OTEL_TRACES_EXPORTER=none. warn gets what of the headers' variable is
// left out, and why.
func FromEnv(getenv func(string) string, warn func(string)) *Exporter {
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") ||
		strings.EqualFold(strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER")), "none") {
		return nil
	}
	url := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"))
	if url == "" {
		base := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_ENDPOINT"))
		if base == "" {
			return nil
		}
		url = strings.TrimRight(base, "/") + "/v1/traces"
	}
	service := strings.TrimSpace(getenv("OTEL_SERVICE_NAME"))
	if service == "" {
		service = "noora-hooks"
	}
	x := &Exporter{URL: url, Service: service}
	name := "OTEL_EXPORTER_OTLP_TRACES_HEADERS"
	value := getenv(name)
	if strings.TrimSpace(value) == "" {
		name = "OTEL_EXPORTER_OTLP_HEADERS"
		value = getenv(name)
	}
	x.Headers = parseHeaders(name, value, warn)
	return x
}

// parseHeaders reads the OpenTelemetry headers variable name: a
// comma-separated list of key=value, each key and value percent-encoded
// (OpenTelemetry's environment specification; the format of W3C baggage,
// without its properties). An entry that is not one, or is not a header a
// request can carry, is left out with a warning that never shows a value.
func parseHeaders(name, value string, warn func(string)) []outbound.Header {
	var out []outbound.Header
	for i, entry := range strings.Split(value, ",") {
		if strings.TrimSpace(entry) == "" {
			continue
		}
		if len(out) == outbound.MaxHeaders {
			warn(fmt.Sprintf("%s: only the first %d headers are sent", name, outbound.MaxHeaders))
			break
		}
		k, v, ok := strings.Cut(entry, "=")
		key, kerr := url.PathUnescape(strings.TrimSpace(k))
		val, verr := url.PathUnescape(strings.TrimSpace(v))
		h := outbound.Header{Name: key, Value: val}
		err := outbound.CheckHeader(h)
		switch {
		case !ok:
			err = errors.New("no key=value")
		case kerr != nil || verr != nil:
			err = errors.New("bad percent-encoding")
		}
		if err != nil {
			warn(fmt.Sprintf("%s: entry %d (%s) is left out: %v", name, i+1, redactedEntry(k), err))
			continue
		}
		out = append(out, h)
	}
	return out
}

// redactedEntry names an entry by its key only: its value may be a secret.
func redactedEntry(key string) string {
	key = strings.TrimSpace(key)
	if len(key) > 40 || strings.IndexFunc(key, func(r rune) bool { return r < ' ' || r > '~' }) >= 0 {
		return "key not shown"
	}
	return "key " + strconv.Quote(key)
}

// Parent is a W3C trace context: the trace and span the firing's span nests
// under.
type Parent struct {
	TraceID [16]byte
	SpanID  [8]byte
}

// ParseTraceparent reads a W3C traceparent header value
// (00-<32 hex>-<16 hex>-<2 hex>); ok is false when it is not one, or names
// the invalid all-zero trace or span.
func ParseTraceparent(s string) (p Parent, ok bool) {
	parts := strings.Split(strings.TrimSpace(s), "-")
	if len(parts) < 4 || len(parts[0]) != 2 || parts[0] == "ff" || len(parts[1]) != 32 || len(parts[2]) != 16 || len(parts[3]) != 2 {
		return Parent{}, false
	}
	if parts[0] == "00" && len(parts) != 4 {
		return Parent{}, false
	}
	if _, err := hex.Decode(p.TraceID[:], []byte(parts[1])); err != nil {
		return Parent{}, false
	}
	if _, err := hex.Decode(p.SpanID[:], []byte(parts[2])); err != nil {
		return Parent{}, false
	}
	if _, err := hex.DecodeString(parts[3]); err != nil {
		return Parent{}, false
	}
	if p.TraceID == ([16]byte{}) || p.SpanID == ([8]byte{}) {
		return Parent{}, false
	}
	return p, true
}

// Spans are the spans of one firing: the firing, then one child per hook
// that ran. The journal keeps each hook's duration, not its start: hooks
// start together when the firing does (SPEC §3 runs them at once), so a
// hook's span starts with the firing's.
func Spans(rec journal.Record, parent *Parent) []Span {
	end := rec.Time
	start := end.Add(-time.Duration(rec.DurationMS * float64(time.Millisecond)))
	root := Span{Name: rec.Event, Kind: KindInternal, Start: start, End: end, SpanID: newSpanID()}
	if parent != nil {
		root.TraceID, root.ParentID = parent.TraceID, parent.SpanID
	} else {
		_, _ = rand.Read(root.TraceID[:])
	}
	decision := decisionOf(rec.Answer)
	root.Attrs = []Attr{
		{"noora.event", rec.Event},
		{"noora.via", rec.Via},
		{"noora.decision", decision},
		{"noora.hooks.considered", len(rec.Hooks)},
	}
	for _, a := range []Attr{{"noora.session_id", rec.Session}, {"noora.tool", rec.Tool}, {"noora.dialect", rec.Dialect}, {"noora.agent_event", rec.AgentEvent}} {
		if a.Value != "" {
			root.Attrs = append(root.Attrs, a)
		}
	}
	if rec.SafeMode {
		root.Attrs = append(root.Attrs, Attr{"noora.safe_mode", true})
	}
	spans := []Span{root}
	ran := 0
	for _, h := range rec.Hooks {
		if !h.Ran {
			continue
		}
		ran++
		s := Span{
			TraceID: root.TraceID, SpanID: newSpanID(), ParentID: root.SpanID,
			Name: h.Source + " " + h.Hook, Kind: KindInternal, Start: start,
			End: start.Add(time.Duration(h.DurationMS * float64(time.Millisecond))),
			Attrs: []Attr{
				{"noora.event", rec.Event},
				{"noora.hook", h.Hook},
				{"noora.hook.source", h.Source},
				{"noora.hook.status", h.Status},
				{"noora.hook.decision", h.Answer},
				{"noora.hook.duration_ms", h.DurationMS},
			},
			Status: StatusOK,
		}
		if h.Where != "" {
			s.Attrs = append(s.Attrs, Attr{"noora.hook.where", h.Where})
		}
		if h.ExitCode != nil {
			s.Attrs = append(s.Attrs, Attr{"process.exit.code", *h.ExitCode})
		}
		if h.Status != "ok" {
			s.Status, s.StatusMessage = StatusError, h.Status
		}
		spans = append(spans, s)
	}
	spans[0].Attrs = append(spans[0].Attrs, Attr{"noora.hooks.ran", ran})
	return spans
}

// decisionOf is what the combined answer decided: its action (block,
// approve, modify, continue, skip, rewrite, allow), else what it carries
// (context, replace, set), else "none".
func decisionOf(answer json.RawMessage) string {
	var a map[string]json.RawMessage
	if json.Unmarshal(answer, &a) != nil {
		return "none"
	}
	var action string
	if json.Unmarshal(a["action"], &action) == nil && action != "" {
		return action
	}
	for _, k := range []string{"context", "replace", "set"} {
		if _, ok := a[k]; ok {
			return k
		}
	}
	return "none"
}

func newSpanID() (id [8]byte) {
	_, _ = rand.Read(id[:])
	return id
}

// Delivery is the spans of rec as one delivery of the outbound spool, posted
// to the collector by the sender like a webhook (and retried like one).
func (x *Exporter) Delivery(rec journal.Record, parent *Parent, version string) (outbound.Delivery, error) {
	id, err := outbound.NewID()
	if err != nil {
		return outbound.Delivery{}, err
	}
	return outbound.Delivery{
		Target: "otlp " + x.URL, URL: x.URL, Event: "otlp.traces", ID: id, Created: time.Now(),
		Timeout: 10 * time.Second, UserAgent: "noora-hooks/" + version,
		Body: Encode(x.Service, version, Spans(rec, parent)), ContentType: outbound.ContentProtobuf,
		Headers: x.Headers,
	}, nil
}
