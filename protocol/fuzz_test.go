package protocol

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzReadAnswer: no hook output can crash the reader, and what it returns is
// well-formed.
func FuzzReadAnswer(f *testing.F) {
	for _, s := range []string{
		`{"action":"block","message":"x"}`, `{"decision":"modify","tool_input":{"a":1}}`,
		`{"hookSpecificOutput":{"permissionDecision":"deny"}}`, `{"permission":"ask","agentMessage":"m"}`,
		`"str"`, `{"context":"c"}`, `{"action":"rewrite","text":"t"}`, `[1,2]`, `{"a":{"b":`, `{"\u0000.*":1}`,
		`{"action":"allow","action":"block"}`, `{"action":"block","message":0,"reason":"  "}`,
		`{"action":"modify","args":"x","decision":"modify","tool_input":{"a":1,"a":2}}`,
		`{"action":"approve","message":" \u001f ","rule_key":" k "}`, `{"action":" Continue","message":" m "}`,
	} {
		f.Add(s)
	}
	events := EventNames()
	f.Fuzz(func(t *testing.T, stdout string) {
		v, ok, err := Parse([]byte(stdout))
		if err != nil || !ok {
			return
		}
		var answers []Answer
		for _, e := range events {
			a := Read(e, v)
			if a.Kind == Block && a.Message == "" {
				t.Fatalf("%s: block without a message from %q", e, stdout)
			}
			answers = append(answers, a)
			b, err := a.MarshalJSON()
			if err != nil || !json.Valid(b) {
				t.Fatalf("%s: answer %q is not valid JSON (%v)", e, b, err)
			}
		}
		for _, e := range events {
			b, _ := Combine(e, nil, answers).MarshalJSON()
			if !json.Valid(b) {
				t.Fatalf("%s: combined answer %q is not valid JSON", e, b)
			}
		}
	})
}

// FuzzPayload: any kwargs object gives a valid payload that keeps every
// top-level kwarg.
func FuzzPayload(f *testing.F) {
	for _, s := range []string{
		`{"tool_name":"terminal","args":{"command":"ls"},"session_id":"s"}`, `{}`, `{"a":1,"a":2}`,
		`{"args":[1],"parent_session_id":null}`, `{"session_id":null,"parent_session_id":"p"}`, `{"x":"\ud800"}`,
		`{"session_id":0,"parent_session_id":"p"}`, `{"session_id":1e-400,"parent_session_id":[]}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, kwargs string) {
		kw, err := ParseObject([]byte(kwargs))
		if err != nil {
			return
		}
		b, err := Payload("pre_tool_call", WithTelemetry(kw), "/w").MarshalJSON()
		if err != nil || !json.Valid(b) {
			t.Fatalf("payload %q is not valid JSON (%v)", b, err)
		}
		if bytes.ContainsAny(b, "\n\r") {
			t.Fatalf("payload %q is more than one line", b)
		}
		back, err := ParseObject(b)
		if err != nil || len(back) != 6 {
			t.Fatalf("payload %q does not have the six members", b)
		}
		for _, f := range kw {
			if raw, ok := back.Get("extra"); ok && bytes.Contains(raw, String(f.Key)) {
				continue
			}
			if f.Key == "tool_name" || f.Key == "args" || f.Key == "session_id" {
				continue
			}
			t.Fatalf("kwarg %q was dropped from %s", f.Key, b)
		}
	})
}
