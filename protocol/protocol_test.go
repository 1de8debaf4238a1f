package protocol

import (
	"strings"
	"testing"
)

func read(t *testing.T, event, stdout string) Answer {
	t.Helper()
	v, ok, err := Parse([]byte(stdout))
	if err != nil || !ok {
		t.Fatalf("Parse(%q) = ok %v, err %v", stdout, ok, err)
	}
	return Read(event, v)
}

func TestReadAnswers(t *testing.T) {
	tests := []struct {
		name, event, stdout string
		kind                Kind
		message, text       string
		args                string
	}{
		{"a Noora block carries its message", PreToolCall, `{"action":"block","message":"no"}`, Block, "no", "", ""},
		{"a Noora block falls back to reason", PreToolCall, `{"action":"block","reason":"r"}`, Block, "r", "", ""},
		{"a Claude block carries its reason", PreToolCall, `{"decision":"block","reason":"r"}`, Block, "r", "", ""},
		{"a Claude block falls back to message", PreToolCall, `{"decision":"block","message":"m"}`, Block, "m", "", ""},
		{"a block with a non-string message gets the default", PreToolCall, `{"action":"block","message":42}`, Block, DefaultBlockMessage, "", ""},
		{"a Noora modify carries its args", PreToolCall, `{"action":"modify","args":{"a":1}}`, Modify, "", "", `{"a":1}`},
		{"a Claude modify carries its tool_input", PreToolCall, `{"decision":"modify","tool_input":{"b":2}}`, Modify, "", "", `{"b":2}`},
		{"a modify with mixed dialects is no answer", PreToolCall, `{"action":"modify","tool_input":{"b":2}}`, None, "", "", ""},
		{"a modify whose args are not an object is no answer", PreToolCall, `{"action":"modify","args":[1]}`, None, "", "", ""},
		{"an approve keeps message and rule key", PreToolCall, `{"action":"approve","message":"ok","rule_key":"k"}`, Approve, "ok", "", ""},
		{"hookSpecificOutput deny blocks", PreToolCall, `{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"x"}}`, Block, "x", "", ""},
		{"hookSpecificOutput ask approves", PreToolCall, `{"hookSpecificOutput":{"permissionDecision":"ask"}}`, Approve, "", "", ""},
		{"hookSpecificOutput allow is no answer", PreToolCall, `{"hookSpecificOutput":{"permissionDecision":"allow"}}`, None, "", "", ""},
		{"hookSpecificOutput updatedInput modifies", PreToolCall, `{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"c":3}}}`, Modify, "", "", `{"c":3}`},
		{"Cursor deny prefers the agent message", PreToolCall, `{"permission":"deny","user_message":"u","agent_message":"a"}`, Block, "a", "", ""},
		{"Cursor deny takes camelCase", PreToolCall, `{"permission":"deny","userMessage":"u"}`, Block, "u", "", ""},
		{"Cursor ask approves", PreToolCall, `{"permission":"ask","agentMessage":"sure?"}`, Approve, "sure?", "", ""},
		{"Cursor allow is no answer", PreToolCall, `{"permission":"allow"}`, None, "", "", ""},
		{"an empty object is no answer", PreToolCall, `{}`, None, "", "", ""},
		{"a string on pre_tool_call is no answer", PreToolCall, `"block"`, None, "", "", ""},
		{"context is read on pre_llm_call", PreLLMCall, `{"context":"c"}`, Context, "", "c", ""},
		{"additionalContext is read on pre_llm_call", PreLLMCall, `{"hookSpecificOutput":{"additionalContext":"ac"}}`, Context, "", "ac", ""},
		{"a plain string is context on pre_llm_call", PreLLMCall, `"s"`, Context, "", "s", ""},
		{"blank context is no answer", PreLLMCall, `{"context":" \n"}`, None, "", "", ""},
		{"continue with a message keeps the agent going", PreVerify, `{"action":"continue","message":"m"}`, Continue, "m", "", ""},
		{"a Claude block keeps the agent going at verify", PreVerify, `{"decision":"block","reason":"r"}`, Continue, "r", "", ""},
		{"continue without a message is no answer", PreVerify, `{"action":"continue"}`, None, "", "", ""},
		{"a string replaces a tool result", TransformToolResult, `"new"`, Replace, "", "new", ""},
		{"an empty string replaces a tool result", TransformToolResult, `""`, Replace, "", "", ""},
		{"an object is no transform", TransformTerminalOutput, `{"replace":"x"}`, None, "", "", ""},
		{"an object answers pre_transcription", PreTranscription, `{"prompt":"p"}`, Fields, "", "", ""},
		{"a rewrite needs text", PreGatewayDispatch, `{"action":"rewrite"}`, None, "", "", ""},
		{"an unknown gateway action is no answer", PreGatewayDispatch, `{"action":"explode"}`, None, "", "", ""},
		{"a classification needs a string reason", TransformAPIErrorClassification, `{"reason":5}`, None, "", "", ""},
		{"observers read nothing", PostToolCall, `{"action":"block"}`, None, "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := read(t, tt.event, tt.stdout)
			if a.Kind != tt.kind || a.Message != tt.message || a.Text != tt.text {
				t.Errorf("got %v %q %q, want %v %q %q", a.Kind, a.Message, a.Text, tt.kind, tt.message, tt.text)
			}
			if tt.args != "" {
				b, _ := a.Args.MarshalJSON()
				if string(b) != tt.args {
					t.Errorf("args %s, want %s", b, tt.args)
				}
			}
		})
	}
}

func TestParseRejectsInvalidJSONAndAcceptsEmpty(t *testing.T) {
	if _, _, err := Parse([]byte("{nope")); err == nil {
		t.Error("invalid JSON was accepted")
	}
	if _, _, err := Parse([]byte(`{"a":1} {"b":2}`)); err == nil {
		t.Error("two JSON values were accepted as one")
	}
	if _, ok, err := Parse([]byte(" \n\t")); ok || err != nil {
		t.Errorf("blank output: ok %v err %v, want no answer and no error", ok, err)
	}
}

func TestPayload(t *testing.T) {
	tests := []struct {
		name, kwargs, want string
	}{
		{"tool kwargs fill tool_name and tool_input, the rest goes to extra in order",
			`{"z":1,"tool_name":"terminal","args":{"command":"ls"},"session_id":"s","a":2}`,
			`{"hook_event_name":"e","tool_name":"terminal","tool_input":{"command":"ls"},"session_id":"s","cwd":"/w","extra":{"z":1,"a":2}}`},
		{"missing tool fields are null and the session id empty",
			`{"user_message":"hi"}`,
			`{"hook_event_name":"e","tool_name":null,"tool_input":null,"session_id":"","cwd":"/w","extra":{"user_message":"hi"}}`},
		{"parent_session_id stands in for session_id and stays in extra",
			`{"parent_session_id":"p","child_role":"r"}`,
			`{"hook_event_name":"e","tool_name":null,"tool_input":null,"session_id":"p","cwd":"/w","extra":{"parent_session_id":"p","child_role":"r"}}`},
		{"args that are not an object are kept in extra",
			`{"args":"raw"}`,
			`{"hook_event_name":"e","tool_name":null,"tool_input":null,"session_id":"","cwd":"/w","extra":{"args":"raw"}}`},
		{"values pass through untouched, unicode and nesting included",
			`{"session_id":"s","x":{"b":[1,2.50,null],"a":"é\u2028<"}}`,
			`{"hook_event_name":"e","tool_name":null,"tool_input":null,"session_id":"s","cwd":"/w","extra":{"x":{"b":[1,2.50,null],"a":"é\u2028<"}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kw, err := ParseObject([]byte(tt.kwargs))
			if err != nil {
				t.Fatal(err)
			}
			got, _ := Payload("e", kw, "/w").MarshalJSON()
			if string(got) != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestWithTelemetryAddsTheVersionOnlyWhenAbsent(t *testing.T) {
	kw, _ := ParseObject([]byte(`{"a":1}`))
	got, _ := WithTelemetry(kw).MarshalJSON()
	if string(got) != `{"a":1,"telemetry_schema_version":"noora.observer.v1"}` {
		t.Errorf("got %s", got)
	}
	if b, _ := kw.MarshalJSON(); string(b) != `{"a":1}` {
		t.Errorf("the caller's kwargs changed: %s", b)
	}
	kw, _ = ParseObject([]byte(`{"telemetry_schema_version":"mine"}`))
	got, _ = WithTelemetry(kw).MarshalJSON()
	if string(got) != `{"telemetry_schema_version":"mine"}` {
		t.Errorf("got %s", got)
	}
}

func TestCombine(t *testing.T) {
	kw, _ := ParseObject([]byte(`{"tool_name":"terminal","args":{"command":"ls","cwd":"/"}}`))
	args := func(s string) Object { o, _ := ParseObject([]byte(s)); return o }
	tests := []struct {
		name    string
		event   string
		answers []Answer
		want    string
	}{
		{"no answers give only the event", PreToolCall, nil, `{"event":"pre_tool_call"}`},
		{"the first block wins over earlier approves", PreToolCall,
			[]Answer{{Kind: Approve}, {Kind: Block, Message: "1"}, {Kind: Block, Message: "2"}},
			`{"event":"pre_tool_call","action":"block","message":"1"}`},
		{"modifies merge in order into the original args", PreToolCall,
			[]Answer{{Kind: Modify, Args: args(`{"command":"a","x":1}`)}, {Kind: Modify, Args: args(`{"command":"b"}`)}},
			`{"event":"pre_tool_call","action":"modify","args":{"command":"b","cwd":"/","x":1}}`},
		{"approve carries merged args", PreToolCall,
			[]Answer{{Kind: Approve, RuleKey: "r"}, {Kind: Modify, Args: args(`{"y":2}`)}},
			`{"event":"pre_tool_call","action":"approve","rule_key":"r","args":{"command":"ls","cwd":"/","y":2}}`},
		{"contexts join with a blank line", PreLLMCall,
			[]Answer{{Kind: Context, Text: "a"}, {}, {Kind: Context, Text: "b"}},
			`{"event":"pre_llm_call","context":"a\n\nb"}`},
		{"the first continue wins", PreVerify,
			[]Answer{{Kind: Continue, Message: "x"}, {Kind: Continue, Message: "y"}},
			`{"event":"pre_verify","action":"continue","message":"x"}`},
		{"an empty string replaces a terminal output", TransformTerminalOutput,
			[]Answer{{}, {Kind: Replace, Text: ""}, {Kind: Replace, Text: "later"}},
			`{"event":"transform_terminal_output","replace":""}`},
		{"an empty string does not replace model output", TransformLLMOutput,
			[]Answer{{Kind: Replace, Text: ""}, {Kind: Replace, Text: "t"}},
			`{"event":"transform_llm_output","replace":"t"}`},
		{"transcription fields: last writer wins, non-strings ignored", PreTranscription,
			[]Answer{{Kind: Fields, Fields: args(`{"model":"m1","prompt":"p1"}`)}, {Kind: Fields, Fields: args(`{"prompt":"p2","language":5}`)}},
			`{"event":"pre_transcription","set":{"prompt":"p2","model":"m1"}}`},
		{"the first classification wins", TransformAPIErrorClassification,
			[]Answer{{Kind: Fields, Fields: args(`{"reason":"rate_limit"}`)}, {Kind: Fields, Fields: args(`{"reason":"other"}`)}},
			`{"event":"transform_api_error_classification","classification":{"reason":"rate_limit"}}`},
		{"observers combine to nothing", "on_session_end",
			[]Answer{{Kind: Block, Message: "ignored"}},
			`{"event":"on_session_end"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := Combine(tt.event, kw, tt.answers).MarshalJSON()
			if string(got) != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestClosestSuggestsOnlyLikelyTypos(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"pre_tool_cal", "pre_tool_call", true},
		{"PreToolCall", "pre_tool_call", true},
		{"on_sesion_start", "on_session_start", true},
		{"zzz", "", false},
	}
	for _, tt := range tests {
		got, ok := Closest(tt.in)
		if ok != tt.ok || (ok && got != tt.want) {
			t.Errorf("Closest(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
	if n := len(EventNames()); n != 37 {
		t.Errorf("the catalogue has %d events, SPEC §3 lists 37", n)
	}
	if !strings.HasPrefix(strings.Join(EventNames(), ","), "api_request_error,gateway_platform_event") {
		t.Error("event names are not sorted")
	}
}

func TestStreamingFamily(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		streaming, lifecycle bool
	}{
		{"on_stream_start", true, true},
		{"on_stream_delta", true, true},
		{"on_stream_end", true, true},
		{"on_interim_message", true, false},
		{"post_llm_call", false, false},
		{"pre_tool_call", false, false},
	} {
		ev, ok := Lookup(tc.name)
		if !ok {
			t.Fatalf("%s is not an event", tc.name)
		}
		if ev.Streaming() != tc.streaming || ev.StreamLifecycle() != tc.lifecycle {
			t.Errorf("%s: Streaming %v, StreamLifecycle %v; want %v, %v", tc.name, ev.Streaming(), ev.StreamLifecycle(), tc.streaming, tc.lifecycle)
		}
	}
}

func TestReasoningDelta(t *testing.T) {
	for _, tc := range []struct {
		name, event, kwargs string
		want                bool
	}{
		{"A reasoning delta is one", "on_stream_delta", `{"delta":"hmm","kind":"reasoning"}`, true},
		{"A text delta is not", "on_stream_delta", `{"delta":"hi","kind":"text"}`, false},
		{"A delta without a kind is text", "on_stream_delta", `{"delta":"hi"}`, false},
		{"A kind that is not a string is not reasoning", "on_stream_delta", `{"kind":["reasoning"]}`, false},
		{"Other events never are", "on_stream_end", `{"kind":"reasoning"}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kw, err := ParseObject([]byte(tc.kwargs))
			if err != nil {
				t.Fatal(err)
			}
			if got := ReasoningDelta(tc.event, kw); got != tc.want {
				t.Errorf("ReasoningDelta = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestSessionKey(t *testing.T) {
	for _, tc := range []struct{ name, kwargs, want string }{
		{"The session id", `{"session_id":"s1","parent_session_id":"p"}`, `"s1"`},
		{"The parent when the session id is null", `{"session_id":null,"parent_session_id":"p"}`, `"p"`},
		{"Numbers stay apart from strings", `{"session_id":1}`, `1`},
		{"No session at all", `{}`, `""`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kw, _ := ParseObject([]byte(tc.kwargs))
			if got := SessionKey(kw); got != tc.want {
				t.Errorf("SessionKey = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestGetString(t *testing.T) {
	o, err := ParseObject([]byte(`{"a":"x","n":1,"null":null,"s":""}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		key  string
		want string
		ok   bool
	}{{"a", "x", true}, {"s", "", true}, {"n", "", false}, {"null", "", false}, {"missing", "", false}} {
		if got, ok := o.GetString(tt.key); got != tt.want || ok != tt.ok {
			t.Errorf("GetString(%q) = %q, %v; want %q, %v", tt.key, got, ok, tt.want, tt.ok)
		}
	}
}
