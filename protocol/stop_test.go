package protocol

import "testing"

func TestCombineStopAndToolContext(t *testing.T) {
	kw, _ := ParseObject([]byte(`{"tool_name":"terminal","args":{"command":"ls"}}`))
	tests := []struct {
		name    string
		event   string
		answers []Answer
		want    string
	}{
		{"a stop rides along a block, the first reason wins", PreToolCall,
			[]Answer{{Kind: Block, Message: "no", Stop: true, StopReason: "halt"}, {Stop: true, StopReason: "later"}},
			`{"event":"pre_tool_call","action":"block","message":"no","stop":true,"stop_reason":"halt"}`},
		{"a stop without a reason gets the default one", PreLLMCall,
			[]Answer{{Stop: true}},
			`{"event":"pre_llm_call","stop":true,"stop_reason":"Stopped by a hook."}`},
		{"an observer event carries a stop too", "on_session_start",
			[]Answer{{}, {Stop: true, StopReason: "r"}},
			`{"event":"on_session_start","stop":true,"stop_reason":"r"}`},
		{"post_tool_call joins the contexts hooks add to the result", PostToolCall,
			[]Answer{{Kind: Context, Text: "a"}, {Kind: Context, Text: " "}, {Kind: Context, Text: "b"}},
			`{"event":"post_tool_call","context":"a\n\nb"}`},
		{"no stop, no fields", PreVerify,
			[]Answer{{Kind: Continue, Message: "x"}},
			`{"event":"pre_verify","action":"continue","message":"x"}`},
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
