package compat

import (
	"strings"
	"testing"

	"github.com/noora-hooks/noora-hooks/internal/runner"

	"github.com/noora-hooks/noora-hooks/internal/config"
	"github.com/noora-hooks/noora-hooks/protocol"
)

func cursorHook(event, dialectEvent, matcher string) config.ShellHook {
	h := config.ShellHook{Event: event, Command: "x", Dialect: Cursor, DialectEvent: dialectEvent}
	if matcher != "" {
		h.Matcher = config.NewMatcher(matcher)
	}
	return h
}

func TestCursorPayload(t *testing.T) {
	const common = `"conversation_id":"s1","generation_id":"t1","hook_event_name":`
	const tail = `"workspace_roots":["/home/u/proj"],"user_email":null`
	tests := []struct {
		name, event, kwargs, want string
	}{
		{"a terminal call is beforeShellExecution", "pre_tool_call",
			`{"tool_name":"terminal","args":{"command":"git push","workdir":"sub"},"session_id":"s1","turn_id":"t1"}`,
			`{` + common + `"beforeShellExecution",` + tail + `,"command":"git push","cwd":"/home/u/proj/sub"}`},
		{"an MCP call hands its parameters as JSON text", "pre_tool_call",
			`{"tool_name":"mcp_database_query","args":{"sql":"select 1"},"session_id":"s1","turn_id":"t1"}`,
			`{` + common + `"beforeMCPExecution",` + tail + `,"tool_name":"database_query","tool_input":"{\"sql\":\"select 1\"}"}`},
		{"a read names the absolute file", "pre_tool_call",
			`{"tool_name":"read_file","args":{"path":".env"},"session_id":"s1","turn_id":"t1"}`,
			`{` + common + `"beforeReadFile",` + tail + `,"file_path":"/home/u/proj/.env","attachments":[]}`},
		{"a patch is afterFileEdit with its replacement", "post_tool_call",
			`{"tool_name":"patch","args":{"path":"/a.go","old_string":"x","new_string":"y"},"session_id":"s1","turn_id":"t1","status":"success"}`,
			`{` + common + `"afterFileEdit",` + tail + `,"file_path":"/a.go","edits":[{"old_string":"x","new_string":"y"}]}`},
		{"writing a file replaces nothing with its content", "post_tool_call",
			`{"tool_name":"write_file","args":{"path":"/n.txt","content":"hello"},"session_id":"s1","turn_id":"t1"}`,
			`{` + common + `"afterFileEdit",` + tail + `,"file_path":"/n.txt","edits":[{"old_string":"","new_string":"hello"}]}`},
		{"a finished command has its output and duration", "post_tool_call",
			`{"tool_name":"terminal","args":{"command":"ls"},"result":"a\nb","duration_ms":12,"session_id":"s1","turn_id":"t1"}`,
			`{` + common + `"afterShellExecution",` + tail + `,"command":"ls","output":"a\nb","duration":12}`},
		{"the prompt is the user's message", "pre_llm_call",
			`{"user_message":"hi","session_id":"s1","turn_id":"t1","model":"gpt"}`,
			`{"conversation_id":"s1","generation_id":"t1","model":"gpt","hook_event_name":"beforeSubmitPrompt",` + tail + `,"prompt":"hi","attachments":[]}`},
		{"the verify gate is stop, counting nudges as loops", "pre_verify",
			`{"attempt":1,"session_id":"s1","turn_id":"t1"}`,
			`{` + common + `"stop",` + tail + `,"status":"completed","loop_count":1}`},
		{"a finished turn is afterAgentResponse", "post_llm_call",
			`{"assistant_response":"Done.","session_id":"s1","turn_id":"t1"}`,
			`{` + common + `"afterAgentResponse",` + tail + `,"text":"Done."}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			call := testCall(t, tt.event, tt.kwargs)
			got := strings.TrimSpace(string(cursorDialect.Stdin(cursorHook(tt.event, "", ""), call)))
			if got != tt.want {
				t.Errorf("payload\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestCursorApplies(t *testing.T) {
	tests := []struct {
		name, dialectEvent, matcher, kwargs string
		want                                bool
	}{
		{"a shell hook runs on terminal calls", "beforeShellExecution", "", `{"tool_name":"terminal","args":{"command":"ls"}}`, true},
		{"a shell hook does not run on reads", "beforeShellExecution", "", `{"tool_name":"read_file"}`, false},
		{"a matcher filters on the command", "beforeShellExecution", "^git ", `{"tool_name":"terminal","args":{"command":"git push"}}`, true},
		{"a matcher that does not match the command", "beforeShellExecution", "^git ", `{"tool_name":"terminal","args":{"command":"ls"}}`, false},
		{"without a dialect_event the tool decides", "", "", `{"tool_name":"mcp_x_y"}`, true},
		{"a tool Cursor has no event for", "", "", `{"tool_name":"web_search"}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok, problem := cursorDialect.Applies(cursorHook("pre_tool_call", tt.dialectEvent, tt.matcher), testCall(t, "pre_tool_call", tt.kwargs))
			if ok != tt.want || problem != "" {
				t.Errorf("Applies = %v %q, want %v", ok, problem, tt.want)
			}
		})
	}
}

func TestCursorRead(t *testing.T) {
	tests := []struct {
		name, event, kwargs string
		code                int
		stdout, stderr      string
		kind                protocol.Kind
		message             string
		warns               int
		user                string
		stop                bool
	}{
		{"deny blocks with the agent message and keeps the user's apart", "pre_tool_call", `{"tool_name":"terminal"}`, 0,
			`{"permission":"deny","user_message":"Blocked git push","agent_message":"Do not push"}`, "", protocol.Block, "Do not push", 0, "Blocked git push", false},
		{"camelCase messages are read too", "pre_tool_call", `{"tool_name":"terminal"}`, 0,
			`{"permission":"deny","userMessage":"Blocked"}`, "", protocol.Block, "Blocked", 0, "", false},
		{"ask asks Noora's approval", "pre_tool_call", `{"tool_name":"terminal"}`, 0,
			`{"permission":"ask","user_message":"Really push?"}`, "", protocol.Approve, "Really push?", 0, "", false},
		{"allow is no answer", "pre_tool_call", `{"tool_name":"terminal"}`, 0, `{"permission":"allow"}`, "", protocol.None, "", 0, "", false},
		{"exit 2 blocks with stderr", "pre_tool_call", `{"tool_name":"read_file"}`, 2, "", "secrets file", protocol.Block, "secrets file", 0, "", false},
		{"a follow-up message keeps the agent going", "pre_verify", `{}`, 0, `{"followup_message":"Now run the tests."}`, "", protocol.Continue, "Now run the tests.", 0, "", false},
		{"an empty follow-up lets the turn end", "pre_verify", `{}`, 0, `{"followup_message":""}`, "", protocol.None, "", 0, "", false},
		{"blocking a prompt stops the agent, with the user's message", "pre_llm_call", `{}`, 0, `{"continue":false,"user_message":"contains a key"}`, "", protocol.None, "", 0, "", true},
		{"exit 2 blocks with the whole stderr", "pre_tool_call", `{"tool_name":"terminal"}`, 2, "", strings.Repeat("x", 700), protocol.Block, strings.Repeat("x", 700), 0, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := runner.Outcome{End: runner.Exited, Code: tt.code, Stdout: []byte(tt.stdout), Stderr: []byte(tt.stderr)}
			r := cursorDialect.Read(cursorHook(tt.event, "", ""), testCall(t, tt.event, tt.kwargs), out)
			if r.Answer.Kind != tt.kind || r.Answer.Message != tt.message || len(r.Warnings) != tt.warns {
				t.Errorf("answer %v %q warnings %q, want %v %q %d", r.Answer.Kind, r.Answer.Message, r.Warnings, tt.kind, tt.message, tt.warns)
			}
			if r.Answer.UserMessage != tt.user || r.Answer.Stop != tt.stop {
				t.Errorf("user message %q stop %v, want %q %v", r.Answer.UserMessage, r.Answer.Stop, tt.user, tt.stop)
			}
		})
	}
}
