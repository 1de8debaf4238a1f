package protocol

import (
	"github.com/tidwall/gjson"
)

// The streaming family of observer events (Noora guide, "Streaming output
// hooks"): they fire per token batch, so a host must be able to hand them off
// without waiting for any hook.
const (
	OnStreamStart    = "on_stream_start"
	OnStreamDelta    = "on_stream_delta"
	OnStreamEnd      = "on_stream_end"
	OnInterimMessage = "on_interim_message"
)

// Streaming reports whether e is of the streaming family, which the guide
// delivers through one bounded queue per callback, never on the token path.
func (e Event) Streaming() bool {
	switch e.Name {
	case OnStreamStart, OnStreamDelta, OnStreamEnd, OnInterimMessage:
		return true
	}
	return false
}

// StreamLifecycle reports whether e opens, continues or closes one stream:
// the events a long-lived (`stream: true`) shell hook receives.
func (e Event) StreamLifecycle() bool {
	switch e.Name {
	case OnStreamStart, OnStreamDelta, OnStreamEnd:
		return true
	}
	return false
}

// ReasoningDelta reports whether a firing of event with kw is a reasoning
// delta: on_stream_delta with kind "reasoning". The guide keeps those from
// hooks unless plugins.stream_reasoning_deltas opts in.
func ReasoningDelta(event string, kw Kwargs) bool {
	if event != OnStreamDelta {
		return false
	}
	raw, ok := kw.Get("kind")
	if !ok {
		return false
	}
	v := gjson.ParseBytes(raw)
	return v.Type == gjson.String && v.Str == "reasoning"
}

// SessionKey is the session a firing belongs to, as the payload's
// session_id says it (SPEC §4: session_id, else parent_session_id, else ""),
// in its JSON text so that ids of any type stay distinct.
func SessionKey(kw Kwargs) string {
	id, _ := sessionID(kw)
	return string(id)
}
