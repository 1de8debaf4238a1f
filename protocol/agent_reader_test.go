package protocol

import (
	"testing"
)

// The agent reads a shell hook's stdout with json.loads and the readers of
// agent/shell_hooks.py. Each expectation below is the agent's answer for the
// same stdout; the comment names the function it comes from.
func TestToolDirectivesReadAsTheAgentReadsThem(t *testing.T) {
	tests := []struct {
		name, stdout string
		kind         Kind
		message      string
		ruleKey      string
		args         string
	}{
		// json.loads keeps the last of a key given twice.
		{"a repeated action keeps its last value", `{"action":"allow","action":"block"}`, Block, DefaultBlockMessage, "", ""},
		{"a repeated message keeps its last value", `{"action":"block","message":"a","message":"b"}`, Block, "b", "", ""},
		{"a block overridden by a later action is no block", `{"action":"block","action":"allow"}`, None, "", "", ""},
		{"repeated keys in args keep the last value", `{"action":"modify","args":{"a":1,"a":2}}`, Modify, "", "", `{"a":2}`},
		// _block_message: `primary or secondary`, used when a non-empty string.
		{"a non-string message gives the default, not the reason", `{"action":"block","message":42,"reason":"r"}`, Block, DefaultBlockMessage, "", ""},
		{"a falsy message gives way to the reason", `{"action":"block","message":0,"reason":"r"}`, Block, "r", "", ""},
		{"an empty message gives way to the reason", `{"action":"block","message":"","reason":"r"}`, Block, "r", "", ""},
		{"a blank message is kept as sent", `{"action":"block","message":"  "}`, Block, "  ", "", ""},
		{"a Claude block with a list reason gives the default", `{"decision":"block","reason":["x"],"message":"m"}`, Block, DefaultBlockMessage, "", ""},
		// _parse_pre_tool_call: the approve directive, stripped, blanks dropped.
		{"an approve's message and rule key are stripped", `{"action":"approve","message":"  why \n","rule_key":" k "}`, Approve, "why", "k", ""},
		{"blank approve fields are dropped", `{"action":"approve","message":" ","rule_key":"\u001f"}`, Approve, "", "", ""},
		{"non-string approve fields are dropped", `{"action":"approve","message":5,"rule_key":true}`, Approve, "", "", ""},
		// _parse_pre_tool_call: modify in Noora's form, then Claude's.
		{"a mixed modify falls back to Claude's form", `{"action":"modify","args":"x","decision":"modify","tool_input":{"a":1}}`, Modify, "", "", `{"a":1}`},
		{"a mixed modify prefers Noora's form", `{"action":"modify","args":{"n":1},"decision":"modify","tool_input":{"c":1}}`, Modify, "", "", `{"n":1}`},
		{"a Claude block beats a Noora modify", `{"action":"modify","args":{"a":1},"decision":"block","reason":"r"}`, Block, "r", "", ""},
		{"a modify beats an approve in another key", `{"action":"approve","decision":"modify","tool_input":{"a":1}}`, Modify, "", "", `{"a":1}`},
		// The Claude Code and Cursor shapes are read only where the agent
		// finds nothing.
		{"an approve beats a Claude deny", `{"action":"approve","hookSpecificOutput":{"permissionDecision":"deny"}}`, Approve, "", "", ""},
		{"a Claude deny alone blocks", `{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"x"}}`, Block, "x", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := read(t, PreToolCall, tt.stdout)
			if a.Kind != tt.kind || a.Message != tt.message || a.RuleKey != tt.ruleKey {
				t.Fatalf("got %s %q rule key %q, want %s %q %q", a.Kind, a.Message, a.RuleKey, tt.kind, tt.message, tt.ruleKey)
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

// _parse_pre_verify: the verb is `action or decision`, stripped and
// lower-cased, "continue" or "block"; the message `message or reason`, a
// non-blank string, stripped.
func TestPreVerifyReadAsTheAgentReadsIt(t *testing.T) {
	tests := []struct {
		name, stdout string
		want         string // the message, "" for no answer
	}{
		{"a Noora block keeps the agent going", `{"action":"block","message":"ab"}`, "ab"},
		{"a decision of continue keeps the agent going", `{"decision":"continue","message":"m"}`, "m"},
		{"the verb is read in any case", `{"action":"Continue","message":"m"}`, "m"},
		{"the verb is stripped", `{"action":" continue\u001f","message":"m"}`, "m"},
		{"an action other than the two hides the decision", `{"action":"stop","decision":"block","reason":"r"}`, ""},
		{"an empty action gives way to the decision", `{"action":"","decision":"block","reason":"r"}`, "r"},
		{"a non-string action is no verb", `{"action":1,"decision":"block","reason":"r"}`, ""},
		{"with both, the message wins over the reason", `{"decision":"block","reason":"r","message":"m"}`, "m"},
		{"a padded message is stripped", `{"action":"continue","message":"  run it \n"}`, "run it"},
		{"a blank message is no answer", `{"action":"continue","message":"  ","reason":"r"}`, ""},
		{"a non-string message hides the reason", `{"action":"continue","message":7,"reason":"r"}`, ""},
		{"a repeated message keeps its last value", `{"action":"continue","message":"a","message":"b"}`, "b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := read(t, PreVerify, tt.stdout)
			switch {
			case tt.want == "" && a.Kind != None:
				t.Fatalf("got %s %q, want no answer", a.Kind, a.Message)
			case tt.want != "" && (a.Kind != Continue || a.Message != tt.want):
				t.Fatalf("got %s %q, want continue %q", a.Kind, a.Message, tt.want)
			}
		})
	}
}

// Python's str.strip() and str.isspace(): U+001C..U+001F are whitespace
// there and not in Go's unicode.IsSpace.
func TestPythonWhitespace(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"ASCII blanks are stripped", " \t\n\r\v\fx \n", "x"},
		{"the information separators are stripped", "\x1c\x1d\x1e\x1fx\x1f", "x"},
		{"Unicode spaces are stripped", "\u00a0\u2028x\u3000\u0085", "x"},
		{"a zero-width space is not whitespace", "\u200bx", "\u200bx"},
		{"a byte order mark is not whitespace", "\ufeffx", "\ufeffx"},
		{"inner blanks stay", " a \x1f b ", "a \x1f b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := PyStrip(tt.in); got != tt.want {
				t.Errorf("PyStrip(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// _payload_fields: session_id = `session_id or parent_session_id or ""`.
func TestPayloadSessionIDAsTheAgentComputesIt(t *testing.T) {
	tests := []struct {
		name, kwargs, want, extra string
	}{
		{"a zero session id gives way to the parent", `{"session_id":0,"parent_session_id":"p"}`, `"p"`, `{"session_id":0,"parent_session_id":"p"}`},
		{"a false session id gives way to the parent", `{"session_id":false,"parent_session_id":"p"}`, `"p"`, `{"session_id":false,"parent_session_id":"p"}`},
		{"an empty object gives way to the parent", `{"session_id":{},"parent_session_id":"p"}`, `"p"`, `{"session_id":{},"parent_session_id":"p"}`},
		{"a falsy parent gives the empty string", `{"session_id":"","parent_session_id":0.0}`, `""`, `{"session_id":"","parent_session_id":0.0}`},
		{"a numeric session id is kept", `{"session_id":7}`, `7`, `{}`},
		{"a session id of 0.5 is truthy", `{"session_id":0.5,"parent_session_id":"p"}`, `0.5`, `{"parent_session_id":"p"}`},
		{"a tiny number that Python reads as 0.0 is falsy", `{"session_id":1e-400,"parent_session_id":"p"}`, `"p"`, `{"session_id":1e-400,"parent_session_id":"p"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kw, err := ParseObject([]byte(tt.kwargs))
			if err != nil {
				t.Fatal(err)
			}
			p := Payload(PreToolCall, kw, "/w")
			if got, _ := p.Get("session_id"); string(got) != tt.want {
				t.Errorf("session_id %s, want %s", got, tt.want)
			}
			if got, _ := p.Get("extra"); string(got) != tt.extra {
				t.Errorf("extra %s, want %s", got, tt.extra)
			}
			if got := SessionKey(kw); got != tt.want {
				t.Errorf("SessionKey %s, want %s", got, tt.want)
			}
		})
	}
}
