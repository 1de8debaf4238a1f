package protocol

import "testing"

func TestReadStopAndPersonMessages(t *testing.T) {
	tests := []struct {
		name, event, stdout string
		kind                Kind
		message, user       string
		stop                bool
		reason              string
	}{
		{"a Noora stop is read on an observer event", "on_session_start", `{"stop":true,"stop_reason":"quota used up"}`, None, "", "", true, "quota used up"},
		{"a Claude continue false is a stop with its stopReason", PreLLMCall, `{"continue":false,"stopReason":"frozen"}`, None, "", "", true, "frozen"},
		{"a stop travels with a block", PreToolCall, `{"action":"block","message":"no","stop":true}`, Block, "no", "", true, ""},
		{"continue true is no stop", PreToolCall, `{"continue":true}`, None, "", "", false, ""},
		{"a stop that is not a boolean is no stop", PreToolCall, `{"stop":"yes"}`, None, "", "", false, ""},
		{"Cursor's two messages stay apart", PreToolCall, `{"permission":"deny","user_message":"for you","agent_message":"for the model"}`, Block, "for the model", "for you", false, ""},
		{"the same text twice is one message", PreToolCall, `{"permission":"ask","user_message":"same","agent_message":"same"}`, Approve, "same", "", false, ""},
		{"a Noora block may carry a user_message", PreToolCall, `{"action":"block","message":"m","user_message":"u"}`, Block, "m", "u", false, ""},
		{"context after a tool call is read", PostToolCall, `{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"lint: 2 warnings"}}`, Context, "", "", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := read(t, tt.event, tt.stdout)
			if a.Kind != tt.kind || a.Message != tt.message || a.UserMessage != tt.user || a.Stop != tt.stop || a.StopReason != tt.reason {
				t.Errorf("got kind %v message %q user %q stop %v reason %q; want %v %q %q %v %q",
					a.Kind, a.Message, a.UserMessage, a.Stop, a.StopReason, tt.kind, tt.message, tt.user, tt.stop, tt.reason)
			}
		})
	}
}

func TestCombineStopContextAndPersonMessages(t *testing.T) {
	kw, _ := ParseObject([]byte(`{"tool_name":"terminal","args":{"command":"ls"}}`))
	tests := []struct {
		name    string
		event   string
		answers []Answer
		want    string
	}{
		{"a stop before a tool call also blocks it", PreToolCall,
			[]Answer{{}, {Stop: true, StopReason: "budget spent"}},
			`{"event":"pre_tool_call","action":"block","message":"budget spent","stop":true,"stop_reason":"budget spent"}`},
		{"a stop keeps the block that came first", PreToolCall,
			[]Answer{{Kind: Block, Message: "no rm"}, {Stop: true, StopReason: "ending"}},
			`{"event":"pre_tool_call","action":"block","message":"no rm","stop":true,"stop_reason":"ending"}`},
		{"a stop rides along a block, the first reason wins", PreToolCall,
			[]Answer{{Kind: Block, Message: "no", Stop: true, StopReason: "halt"}, {Stop: true, StopReason: "later"}},
			`{"event":"pre_tool_call","action":"block","message":"no","stop":true,"stop_reason":"halt"}`},
		// The block's message is the default block message; stop_reason is the
		// default stop reason, as on every event.
		{"a stop without a reason blocks with the default message", PreToolCall,
			[]Answer{{Kind: Modify, Args: Object{{Key: "command", Value: String("ls -a")}}, Stop: true}},
			`{"event":"pre_tool_call","action":"block","message":"Blocked by shell hook.","stop":true,"stop_reason":"Stopped by a hook."}`},
		{"a stop without a reason gets the default one", PreLLMCall,
			[]Answer{{Stop: true}},
			`{"event":"pre_llm_call","stop":true,"stop_reason":"Stopped by a hook."}`},
		{"the first non-blank reason among the stops is given", PreVerify,
			[]Answer{{Stop: true}, {Stop: true, StopReason: "second"}, {Stop: true, StopReason: "third"}},
			`{"event":"pre_verify","stop":true,"stop_reason":"second"}`},
		{"an observer event carries a stop too", "on_session_start",
			[]Answer{{}, {Stop: true, StopReason: "r"}},
			`{"event":"on_session_start","stop":true,"stop_reason":"r"}`},
		{"post_tool_call joins the contexts hooks add to the result", PostToolCall,
			[]Answer{{Kind: Context, Text: "a"}, {Kind: Context, Text: " "}, {Kind: Context, Text: "b"}},
			`{"event":"post_tool_call","context":"a\n\nb"}`},
		{"no stop, no fields", PreVerify,
			[]Answer{{Kind: Continue, Message: "x"}},
			`{"event":"pre_verify","action":"continue","message":"x"}`},
		{"a block keeps its text for the person", PreToolCall,
			[]Answer{{Kind: Block, Message: "agent", UserMessage: "person"}},
			`{"event":"pre_tool_call","action":"block","message":"agent","user_message":"person"}`},
		{"an approve keeps its text for the person", PreToolCall,
			[]Answer{{Kind: Approve, Message: "agent", UserMessage: "person"}},
			`{"event":"pre_tool_call","action":"approve","message":"agent","user_message":"person"}`},
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

func TestAnswerTraceShowsAStop(t *testing.T) {
	got, _ := Answer{Stop: true, StopReason: "r"}.MarshalJSON()
	if want := `{"kind":"none","stop":true,"stop_reason":"r"}`; string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
