package main

import (
	"encoding/hex"
	"fmt"
	"sort"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// cmdOTLPSpans (`otlpspans SINK [HEADER...]`) decodes every OTLP/HTTP request the sink
// got with the official protobuf types (a TracesData is an
// ExportTraceServiceRequest on the wire) and prints one line per span:
// its name, trace id, parent (the firing's span as "firing") and its
// attributes, sorted. Each request's line shows the HEADERs named.
func cmdOTLPSpans(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: otlpspans SINK [HEADER...]")
	}
	sinksMu.Lock()
	s := sinks[ts][args[0]]
	sinksMu.Unlock()
	if s == nil {
		ts.Fatalf("no sink %q", args[0])
	}
	for _, r := range s.requests() {
		var td tracepb.TracesData
		if err := proto.Unmarshal(r.body, &td); err != nil {
			ts.Fatalf("%s: not an OTLP protobuf request: %v", r.path, err)
		}
		line := fmt.Sprintf("request %s %s", r.path, r.header.Get("Content-Type"))
		for _, h := range args[1:] {
			line += fmt.Sprintf(" %s=%q", h, r.header.Get(h))
		}
		fmt.Fprintln(ts.Stdout(), line)
		for _, rs := range td.GetResourceSpans() {
			for _, ss := range rs.GetScopeSpans() {
				var firing []byte
				for _, sp := range ss.GetSpans() {
					parent := hex.EncodeToString(sp.GetParentSpanId())
					if firing != nil && string(sp.GetParentSpanId()) == string(firing) {
						parent = "firing"
					}
					if firing == nil {
						firing = sp.GetSpanId()
					}
					fmt.Fprintf(ts.Stdout(), "span %q trace=%x parent=%s status=%s %s\n", sp.GetName(), sp.GetTraceId(), parent, sp.GetStatus().GetCode(), attrsText(sp.GetAttributes()))
				}
			}
		}
	}
}

func attrsText(kvs []*commonpb.KeyValue) string {
	var out []string
	for _, kv := range kvs {
		var v string
		switch x := kv.GetValue().GetValue().(type) {
		case *commonpb.AnyValue_StringValue:
			v = x.StringValue
		case *commonpb.AnyValue_IntValue:
			v = fmt.Sprint(x.IntValue)
		case *commonpb.AnyValue_BoolValue:
			v = fmt.Sprint(x.BoolValue)
		case *commonpb.AnyValue_DoubleValue:
			v = "N" // durations vary
		}
		out = append(out, kv.GetKey()+"="+v)
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}
