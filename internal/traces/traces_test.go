package traces

import (
	"context"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/noora-hooks/noora-hooks/internal/journal"
	"github.com/noora-hooks/noora-hooks/internal/outbound"
)

// receiver is an OTLP/HTTP collector endpoint: it decodes each POST to
// /v1/traces with the official protobuf types. An ExportTraceServiceRequest
// and a TracesData are the same message on the wire (opentelemetry-proto
// says so, for this use): TracesData keeps grpc out of the test's imports.
type receiver struct {
	mu       sync.Mutex
	requests []*tracepb.TracesData
	types    []string
	headers  []http.Header
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.URL.Path != "/v1/traces" || req.Method != http.MethodPost {
		http.NotFound(w, req)
		return
	}
	body, _ := io.ReadAll(req.Body)
	var msg tracepb.TracesData
	if err := proto.Unmarshal(body, &msg); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	r.requests = append(r.requests, &msg)
	r.types = append(r.types, req.Header.Get("Content-Type"))
	r.headers = append(r.headers, req.Header.Clone())
	r.mu.Unlock()
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.WriteHeader(http.StatusOK) // an empty ExportTraceServiceResponse
}

func record() journal.Record {
	code, fail := 0, 1
	return journal.Record{
		Time: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC), Via: "exec", Event: "pre_tool_call",
		Session: "s1", Tool: "terminal", DurationMS: 20,
		Hooks: []journal.Hook{
			{Source: "shell", Hook: "./guard.sh", Where: "c.yaml:3", Ran: true, Status: "ok", ExitCode: &code, DurationMS: 12, Answer: "block"},
			{Source: "shell", Hook: "./other.sh", Ran: false, Reason: "matcher"},
			{Source: "shell", Hook: "./broken.sh", Ran: true, Status: "error", ExitCode: &fail, DurationMS: 3, Answer: "none"},
		},
		Answer: []byte(`{"event":"pre_tool_call","action":"block","message":"no"}`),
	}
}

// The spans of a firing go through the outbound spool and the sender's POST
// to a collector, which reads them with the official types: one span for the
// firing under the caller's traceparent, one child per hook that ran.
func TestSpansReachACollectorUnderTheCallersTrace(t *testing.T) {
	rcv := &receiver{}
	srv := httptest.NewServer(rcv)
	defer srv.Close()
	x := FromEnv(func(k string) string {
		return map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": srv.URL + "/", "OTEL_SERVICE_NAME": "agent-hooks",
			"OTEL_EXPORTER_OTLP_HEADERS": "x-api-key=k%3D1,Content-Type=text/plain"}[k]
	}, func(m string) { t.Errorf("warning: %s", m) })
	if x == nil || x.URL != srv.URL+"/v1/traces" {
		t.Fatalf("exporter = %+v, want the endpoint's /v1/traces", x)
	}
	parent, ok := ParseTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	if !ok {
		t.Fatal("a valid traceparent was refused")
	}
	d, err := x.Delivery(record(), &parent, "1.2.3")
	if err != nil {
		t.Fatal(err)
	}
	sp := outbound.Spool{Dir: filepath.Join(t.TempDir(), "outbound")}
	if err := sp.Add(d); err != nil {
		t.Fatal(err)
	}
	pending, err := sp.Pending()
	if err != nil || len(pending) != 1 {
		t.Fatalf("pending = %v, %v; want one delivery", pending, err)
	}
	back, err := sp.Read(pending[0])
	if err != nil {
		t.Fatalf("the spool does not read the spans back: %v", err)
	}
	if a := outbound.Post(context.Background(), outbound.NewClient(), back); !a.OK() {
		t.Fatalf("POST: %v", a)
	}

	if len(rcv.requests) != 1 || rcv.types[0] != "application/x-protobuf" {
		t.Fatalf("the collector got %d requests (%v), want one protobuf", len(rcv.requests), rcv.types)
	}
	if got := rcv.headers[0].Get("X-Api-Key"); got != "k=1" {
		t.Errorf("x-api-key = %q, want the header OTEL_EXPORTER_OTLP_HEADERS names, decoded", got)
	}
	rs := rcv.requests[0].GetResourceSpans()
	if len(rs) != 1 || attr(rs[0].GetResource().GetAttributes(), "service.name") != "agent-hooks" {
		t.Fatalf("resource = %v, want service.name agent-hooks", rs)
	}
	ss := rs[0].GetScopeSpans()
	if len(ss) != 1 || ss[0].GetScope().GetName() != "noora-hooks" || ss[0].GetScope().GetVersion() != "1.2.3" {
		t.Fatalf("scope = %v", ss)
	}
	spans := ss[0].GetSpans()
	if len(spans) != 3 {
		t.Fatalf("got %d spans, want the firing and the two hooks that ran", len(spans))
	}
	root, guard, broken := spans[0], spans[1], spans[2]
	if hex.EncodeToString(root.GetTraceId()) != "4bf92f3577b34da6a3ce929d0e0e4736" || hex.EncodeToString(root.GetParentSpanId()) != "00f067aa0ba902b7" {
		t.Errorf("firing span: trace %x parent %x, want the traceparent's", root.GetTraceId(), root.GetParentSpanId())
	}
	if root.GetName() != "pre_tool_call" || root.GetKind() != tracepb.Span_SPAN_KIND_INTERNAL {
		t.Errorf("firing span is %q kind %v", root.GetName(), root.GetKind())
	}
	if got := root.GetEndTimeUnixNano() - root.GetStartTimeUnixNano(); got != uint64(20*time.Millisecond) {
		t.Errorf("firing span lasts %d ns, want 20 ms", got)
	}
	for k, want := range map[string]string{"noora.event": "pre_tool_call", "noora.decision": "block", "noora.tool": "terminal", "noora.session_id": "s1"} {
		if got := attr(root.GetAttributes(), k); got != want {
			t.Errorf("firing %s = %q, want %q", k, got, want)
		}
	}
	for _, s := range []*tracepb.Span{guard, broken} {
		if string(s.GetParentSpanId()) != string(root.GetSpanId()) || string(s.GetTraceId()) != string(root.GetTraceId()) {
			t.Errorf("hook span %q is not a child of the firing", s.GetName())
		}
	}
	if guard.GetName() != "shell ./guard.sh" || attr(guard.GetAttributes(), "process.exit.code") != "0" ||
		attr(guard.GetAttributes(), "noora.hook.decision") != "block" || attr(guard.GetAttributes(), "noora.hook.source") != "shell" ||
		guard.GetStatus().GetCode() != tracepb.Status_STATUS_CODE_OK {
		t.Errorf("guard span = %v", guard)
	}
	if broken.GetStatus().GetCode() != tracepb.Status_STATUS_CODE_ERROR || attr(broken.GetAttributes(), "process.exit.code") != "1" {
		t.Errorf("broken span = %v, want status error, exit 1", broken)
	}
}

// Without a traceparent, the firing starts a trace of its own.
func TestWithoutATraceparentTheFiringIsARoot(t *testing.T) {
	var msg tracepb.TracesData
	if err := proto.Unmarshal(Encode("s", "v", Spans(record(), nil)), &msg); err != nil {
		t.Fatal(err)
	}
	root := msg.GetResourceSpans()[0].GetScopeSpans()[0].GetSpans()[0]
	if len(root.GetParentSpanId()) != 0 || len(root.GetTraceId()) != 16 || len(root.GetSpanId()) != 8 {
		t.Errorf("root span: trace %x span %x parent %x", root.GetTraceId(), root.GetSpanId(), root.GetParentSpanId())
	}
}

func TestTracingIsConfiguredByTheStandardVariables(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"no endpoint: off", nil, ""},
		{"the traces endpoint is used as it is", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/custom", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://x"}, "http://c:4318/custom"},
		{"the base endpoint gets /v1/traces", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, "http://c:4318/v1/traces"},
		{"OTEL_SDK_DISABLED turns it off", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_SDK_DISABLED": "true"}, ""},
		{"OTEL_TRACES_EXPORTER=none turns it off", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_TRACES_EXPORTER": "none"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := FromEnv(func(k string) string { return tt.env[k] }, func(string) {})
			got := ""
			if x != nil {
				got = x.URL
			}
			if got != tt.want {
				t.Errorf("URL = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestHeadersFromTheStandardVariables(t *testing.T) {
	tests := []struct {
		name     string
		env      map[string]string
		want     string
		warnings string
	}{
		{"none", nil, "", ""},
		{"the list, decoded and trimmed", map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": " api-key = a%20b ,x-team=t1,, "}, "api-key: a b|x-team: t1", ""},
		{"the traces variable replaces the general one", map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "a=1", "OTEL_EXPORTER_OTLP_TRACES_HEADERS": "b=2"}, "b: 2", ""},
		{"a value may hold =", map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "authorization=Basic dXNlcjpwYXNz=="}, "authorization: Basic dXNlcjpwYXNz==", ""},
		{"bad entries are left out, their values never shown", map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "ok=1,novalue,bad key=s3cret,x=%zz,y=a%0Ab"},
			"ok: 1", `OTEL_EXPORTER_OTLP_HEADERS: entry 2 (key "novalue") is left out: no key=value|` +
				`OTEL_EXPORTER_OTLP_HEADERS: entry 3 (key "bad key") is left out: header name "bad key" is not an HTTP token|` +
				`OTEL_EXPORTER_OTLP_HEADERS: entry 4 (key "x") is left out: bad percent-encoding|` +
				`OTEL_EXPORTER_OTLP_HEADERS: entry 5 (key "y") is left out: the value of header y holds a control character`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}
			for k, v := range tt.env {
				env[k] = v
			}
			var warnings []string
			x := FromEnv(func(k string) string { return env[k] }, func(m string) { warnings = append(warnings, m) })
			var got []string
			for _, h := range x.Headers {
				got = append(got, h.Name+": "+h.Value)
			}
			if strings.Join(got, "|") != tt.want || strings.Join(warnings, "|") != tt.warnings {
				t.Errorf("headers %q, warnings %q;\nwant %q, %q", got, warnings, tt.want, tt.warnings)
			}
			if strings.Contains(strings.Join(warnings, ""), "s3cret") {
				t.Error("a warning shows a value")
			}
		})
	}
}

func TestParseTraceparent(t *testing.T) {
	tests := []struct {
		name, in string
		ok       bool
	}{
		{"a valid version 00 header is read", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", true},
		{"an all-zero trace id is invalid", "00-00000000000000000000000000000000-00f067aa0ba902b7-01", false},
		{"an all-zero span id is invalid", "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01", false},
		{"version ff is invalid", "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", false},
		{"a short trace id is invalid", "00-4bf92f35-00f067aa0ba902b7-01", false},
		{"not hex is invalid", "00-4bf92f3577b34da6a3ce929d0e0e473z-00f067aa0ba902b7-01", false},
		{"a future version may carry more fields", "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra", true},
		{"empty is no parent", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, ok := ParseTraceparent(tt.in); ok != tt.ok {
				t.Errorf("ok = %v, want %v", ok, tt.ok)
			}
		})
	}
}

func FuzzParseTraceparent(f *testing.F) {
	f.Add("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	f.Add("00--")
	f.Fuzz(func(t *testing.T, s string) {
		if p, ok := ParseTraceparent(s); ok && (p.TraceID == [16]byte{} || p.SpanID == [8]byte{}) {
			t.Fatalf("accepted an invalid parent from %q", s)
		}
	})
}

// attr is an attribute's value as text.
func attr(kvs []*commonpb.KeyValue, key string) string {
	for _, kv := range kvs {
		if kv.GetKey() != key {
			continue
		}
		switch v := kv.GetValue().GetValue().(type) {
		case *commonpb.AnyValue_StringValue:
			return v.StringValue
		case *commonpb.AnyValue_IntValue:
			return itoa(v.IntValue)
		case *commonpb.AnyValue_BoolValue:
			if v.BoolValue {
				return "true"
			}
			return "false"
		}
	}
	return ""
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func FuzzParseHeaders(f *testing.F) {
	for _, s := range []string{"a=b,c=d", "x=%zz", "=v", "k=v%0D%0AInjected:%201", ",,,", "authorization=Bearer t=="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, value string) {
		hs := parseHeaders("V", value, func(string) {})
		if len(hs) > outbound.MaxHeaders {
			t.Fatalf("%d headers, over the bound", len(hs))
		}
		req, _ := http.NewRequest(http.MethodPost, "http://c/v1/traces", nil)
		for _, h := range hs {
			if err := outbound.CheckHeader(h); err != nil {
				t.Fatalf("kept a header a request cannot carry: %v", err)
			}
			req.Header.Add(h.Name, h.Value)
		}
		if err := req.Header.Write(io.Discard); err != nil {
			t.Fatal(err)
		}
	})
}
