package traces

import (
	"encoding/binary"
	"math"
)

// This file writes OTLP's protobuf encoding of an ExportTraceServiceRequest
// (opentelemetry-proto, collector/trace/v1) by hand: the official Go types
// cost every start of the binary tens of milliseconds of package
// initialisation (docs/journal.md, Traces), and exec starts for every tool
// call. The test decodes what is written here with the official types.

// Field numbers of opentelemetry-proto v1 used below.
const (
	fReqResourceSpans = 1 // ExportTraceServiceRequest.resource_spans

	fRSResource   = 1 // ResourceSpans.resource
	fRSScopeSpans = 2 // ResourceSpans.scope_spans

	fResAttributes = 1 // Resource.attributes

	fSSScope = 1 // ScopeSpans.scope
	fSSSpans = 2 // ScopeSpans.spans

	fScopeName    = 1 // InstrumentationScope.name
	fScopeVersion = 2 // InstrumentationScope.version

	fSpanTraceID      = 1
	fSpanSpanID       = 2
	fSpanParentSpanID = 4
	fSpanName         = 5
	fSpanKind         = 6
	fSpanStart        = 7 // fixed64
	fSpanEnd          = 8 // fixed64
	fSpanAttributes   = 9
	fSpanStatus       = 15

	fStatusMessage = 2
	fStatusCode    = 3

	fKVKey   = 1
	fKVValue = 2

	fAnyString = 1
	fAnyBool   = 2
	fAnyInt    = 3
	fAnyDouble = 4
)

// Wire types.
const (
	wireVarint  = 0
	wireFixed64 = 1
	wireBytes   = 2
)

type enc []byte

func (e enc) tag(field, wire int) enc { return binary.AppendUvarint(e, uint64(field)<<3|uint64(wire)) }

func (e enc) bytes(field int, b []byte) enc {
	e = e.tag(field, wireBytes)
	e = binary.AppendUvarint(e, uint64(len(b)))
	return append(e, b...)
}

func (e enc) str(field int, s string) enc {
	if s == "" {
		return e
	}
	return e.bytes(field, []byte(s))
}

func (e enc) varint(field int, v uint64) enc {
	if v == 0 {
		return e
	}
	return binary.AppendUvarint(e.tag(field, wireVarint), v)
}

func (e enc) fixed64(field int, v uint64) enc {
	return binary.LittleEndian.AppendUint64(e.tag(field, wireFixed64), v)
}

// Attr is one attribute: its value is a string, a bool, an int64 or a
// float64.
type Attr struct {
	Key   string
	Value any
}

func (e enc) attr(field int, a Attr) enc {
	var v enc
	switch x := a.Value.(type) {
	case string:
		v = v.bytes(fAnyString, []byte(x))
	case bool:
		b := uint64(0)
		if x {
			b = 1
		}
		v = binary.AppendUvarint(v.tag(fAnyBool, wireVarint), b)
	case int:
		v = binary.AppendUvarint(v.tag(fAnyInt, wireVarint), uint64(int64(x)))
	case int64:
		v = binary.AppendUvarint(v.tag(fAnyInt, wireVarint), uint64(x))
	case float64:
		v = v.fixed64(fAnyDouble, math.Float64bits(x))
	default:
		return e
	}
	var kv enc
	kv = kv.str(fKVKey, a.Key)
	kv = kv.bytes(fKVValue, v)
	return e.bytes(field, kv)
}

// Encode returns the ExportTraceServiceRequest of spans, from one service.
func Encode(service, version string, spans []Span) []byte {
	var res enc
	res = res.attr(fResAttributes, Attr{"service.name", service})
	var scope enc
	scope = scope.str(fScopeName, "noora-hooks")
	scope = scope.str(fScopeVersion, version)
	var ss enc
	ss = ss.bytes(fSSScope, scope)
	for _, s := range spans {
		ss = ss.bytes(fSSSpans, s.encode())
	}
	var rs enc
	rs = rs.bytes(fRSResource, res)
	rs = rs.bytes(fRSScopeSpans, ss)
	var req enc
	return req.bytes(fReqResourceSpans, rs)
}

func (s Span) encode() enc {
	var e enc
	e = e.bytes(fSpanTraceID, s.TraceID[:])
	e = e.bytes(fSpanSpanID, s.SpanID[:])
	if s.ParentID != ([8]byte{}) {
		e = e.bytes(fSpanParentSpanID, s.ParentID[:])
	}
	e = e.str(fSpanName, s.Name)
	e = e.varint(fSpanKind, uint64(s.Kind))
	e = e.fixed64(fSpanStart, uint64(s.Start.UnixNano()))
	e = e.fixed64(fSpanEnd, uint64(s.End.UnixNano()))
	for _, a := range s.Attrs {
		e = e.attr(fSpanAttributes, a)
	}
	if s.Status != StatusUnset {
		var st enc
		st = st.str(fStatusMessage, s.StatusMessage)
		st = st.varint(fStatusCode, uint64(s.Status))
		e = e.bytes(fSpanStatus, st)
	}
	return e
}
