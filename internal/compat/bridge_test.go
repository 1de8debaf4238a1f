package compat

import (
	"errors"
	"strings"
	"testing"

	"github.com/noora-hooks/noora-hooks/protocol"
)

const claudeCommon = `"session_id":"abc123","transcript_path":"/home/u/.claude/projects/p/abc123.jsonl","cwd":"/home/u/proj","permission_mode":"default"`

// Payloads shaped like the Hooks reference's examples, and the Noora event
// and kwargs each becomes.
func TestDecodeClaude(t *testing.T) {
	const kwCommon = `"session_id":"abc123","transcript_path":"/home/u/.claude/projects/p/abc123.jsonl","permission_mode":"default"`
	tests := []struct {
		name, payload, event, kwargs string
	}{
		{"PreToolUse", `{` + claudeCommon + `,"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"npm test","timeout":60000},"tool_use_id":"toolu_01"}`,
			"pre_tool_call", `{` + kwCommon + `,"tool_name":"terminal","args":{"command":"npm test","timeout":60},"tool_call_id":"toolu_01"}`},
		{"PostToolUse Write: the tool_response becomes write_file's result", `{` + claudeCommon + `,"hook_event_name":"PostToolUse","tool_name":"Write","tool_input":{"file_path":"/p/a.txt","content":"x"},"tool_response":{"type":"create","filePath":"/p/a.txt","content":"x"},"tool_use_id":"toolu_02"}`,
			"post_tool_call", `{` + kwCommon + `,"tool_name":"write_file","args":{"path":"/p/a.txt","content":"x"},"result":"{\"bytes_written\":1,\"resolved_path\":\"/p/a.txt\",\"files_modified\":[\"/p/a.txt\"],\"type\":\"create\"}","tool_call_id":"toolu_02","status":"success"}`},
		{"PostToolUse Bash: the tool_response becomes the terminal's result", `{` + claudeCommon + `,"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_response":{"stdout":"a\nb","stderr":"warn","interrupted":false,"isImage":false},"tool_use_id":"toolu_09"}`,
			"post_tool_call", `{` + kwCommon + `,"tool_name":"terminal","args":{"command":"ls"},"result":"{\"output\":\"a\\nb\\nwarn\",\"exit_code\":0,\"error\":null}","tool_call_id":"toolu_09","status":"success"}`},
		{"PostToolUseFailure", `{` + claudeCommon + `,"hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"make"},"tool_use_id":"toolu_03","error":"exit status 2","is_interrupt":false}`,
			"post_tool_call", `{` + kwCommon + `,"tool_name":"terminal","args":{"command":"make"},"tool_call_id":"toolu_03","error_message":"exit status 2","is_interrupt":false,"result":"exit status 2","status":"error"}`},
		{"UserPromptSubmit", `{` + claudeCommon + `,"hook_event_name":"UserPromptSubmit","prompt":"Write a factorial function"}`,
			"pre_llm_call", `{` + kwCommon + `,"user_message":"Write a factorial function"}`},
		{"Stop", `{` + claudeCommon + `,"hook_event_name":"Stop","stop_hook_active":true,"last_assistant_message":"All done."}`,
			"pre_verify", `{` + kwCommon + `,"attempt":1,"final_response":"All done."}`},
		{"SubagentStart", `{` + claudeCommon + `,"hook_event_name":"SubagentStart","agent_id":"agent-7","agent_type":"Explore"}`,
			"subagent_start", `{"parent_session_id":"abc123","transcript_path":"/home/u/.claude/projects/p/abc123.jsonl","permission_mode":"default","child_subagent_id":"agent-7","child_role":"Explore"}`},
		{"SubagentStop", `{` + claudeCommon + `,"hook_event_name":"SubagentStop","stop_hook_active":false,"agent_id":"agent-7","agent_type":"Explore","agent_transcript_path":"/t/agent-7.jsonl","last_assistant_message":"Found it."}`,
			"subagent_stop", `{"parent_session_id":"abc123","transcript_path":"/home/u/.claude/projects/p/abc123.jsonl","permission_mode":"default","stop_hook_active":false,"child_session_id":"agent-7","child_role":"Explore","agent_transcript_path":"/t/agent-7.jsonl","child_summary":"Found it."}`},
		{"SessionStart", `{` + claudeCommon + `,"hook_event_name":"SessionStart","source":"resume","model":"claude-sonnet-4-6"}`,
			"on_session_start", `{` + kwCommon + `,"source":"resume","model":"claude-sonnet-4-6"}`},
		{"SessionEnd", `{` + claudeCommon + `,"hook_event_name":"SessionEnd","reason":"prompt_input_exit"}`,
			"on_session_end", `{` + kwCommon + `,"reason":"prompt_input_exit"}`},
		{"PermissionRequest", `{` + claudeCommon + `,"hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"rm -rf node_modules","description":"Remove dependencies"},"permission_suggestions":[{"type":"toolAlwaysAllow","tool":"Bash"}]}`,
			"pre_approval_request", `{` + kwCommon + `,"tool_name":"terminal","args":{"command":"rm -rf node_modules","description":"Remove dependencies"},"command":"rm -rf node_modules","description":"Remove dependencies","permission_suggestions":[{"type":"toolAlwaysAllow","tool":"Bash"}]}`},
		{"Notification", `{` + claudeCommon + `,"hook_event_name":"Notification","message":"Claude needs your permission to use Bash","notification_type":"permission_prompt"}`,
			"pre_approval_request", `{` + kwCommon + `,"description":"Claude needs your permission to use Bash","notification_type":"permission_prompt"}`},
		{"PreCompact has no Noora event", `{` + claudeCommon + `,"hook_event_name":"PreCompact","trigger":"auto","custom_instructions":""}`, "", ""},
		{"an event from a later Claude Code", `{` + claudeCommon + `,"hook_event_name":"SomethingNew"}`, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := Decode(Claude, []byte(tt.payload))
			if err != nil {
				t.Fatal(err)
			}
			if in.NooraEvent() != tt.event || jsonOf(in.Kwargs) != tt.kwargs {
				t.Errorf("Decode = %s %s\nwant %s %s", in.NooraEvent(), jsonOf(in.Kwargs), tt.event, tt.kwargs)
			}
			if (tt.event == "") != (in.Unmapped() != "") {
				t.Errorf("Unmapped() = %q", in.Unmapped())
			}
		})
	}
}

func TestDecodeCursor(t *testing.T) {
	const common = `"conversation_id":"conv-123","generation_id":"gen-456","model":"gpt-5","cursor_version":"1.7.2","workspace_roots":["/p"],"user_email":"u@example.com"`
	const kwCommon = `"session_id":"conv-123","turn_id":"gen-456","model":"gpt-5","cursor_version":"1.7.2","workspace_roots":["/p"],"user_email":"u@example.com"`
	tests := []struct {
		name, payload, event, kwargs string
	}{
		{"beforeShellExecution", `{` + common + `,"hook_event_name":"beforeShellExecution","command":"git push --force","cwd":"/p"}`,
			"pre_tool_call", `{"tool_name":"terminal","args":{"command":"git push --force","workdir":"/p"},` + kwCommon + `}`},
		{"beforeMCPExecution with JSON text", `{` + common + `,"hook_event_name":"beforeMCPExecution","tool_name":"database_query","tool_input":"{\"query\":\"DROP TABLE users\"}","command":"npx db-mcp"}`,
			"pre_tool_call", `{"tool_name":"mcp_database_query","args":{"query":"DROP TABLE users"},` + kwCommon + `,"server_command":"npx db-mcp"}`},
		{"beforeMCPExecution with an object", `{` + common + `,"hook_event_name":"beforeMCPExecution","tool_name":"q","tool_input":{"a":1},"url":"http://localhost:3000"}`,
			"pre_tool_call", `{"tool_name":"mcp_q","args":{"a":1},` + kwCommon + `,"server_url":"http://localhost:3000"}`},
		{"beforeReadFile", `{` + common + `,"hook_event_name":"beforeReadFile","file_path":"/p/.env","content":"KEY=1","attachments":[]}`,
			"pre_tool_call", `{"tool_name":"read_file","args":{"path":"/p/.env"},` + kwCommon + `,"content":"KEY=1","attachments":[]}`},
		{"afterFileEdit", `{` + common + `,"hook_event_name":"afterFileEdit","file_path":"/p/main.ts","edits":[{"old_string":"a","new_string":"b"}]}`,
			"post_tool_call", `{"tool_name":"patch","args":{"mode":"replace","path":"/p/main.ts","old_string":"a","new_string":"b"},` + kwCommon + `,"edits":[{"old_string":"a","new_string":"b"}]}`},
		{"afterShellExecution", `{` + common + `,"hook_event_name":"afterShellExecution","command":"ls","output":"a","duration":15}`,
			"post_tool_call", `{"tool_name":"terminal","args":{"command":"ls"},` + kwCommon + `,"result":"a","duration_ms":15}`},
		{"beforeSubmitPrompt", `{` + common + `,"hook_event_name":"beforeSubmitPrompt","prompt":"Fix main.ts","attachments":[{"type":"file","filePath":"/p/main.ts"}]}`,
			"pre_llm_call", `{` + kwCommon + `,"user_message":"Fix main.ts","attachments":[{"type":"file","filePath":"/p/main.ts"}]}`},
		{"stop", `{` + common + `,"hook_event_name":"stop","status":"completed","loop_count":0}`,
			"pre_verify", `{` + kwCommon + `,"status":"completed","attempt":0}`},
		{"afterAgentResponse", `{` + common + `,"hook_event_name":"afterAgentResponse","text":"Done."}`,
			"post_llm_call", `{` + kwCommon + `,"assistant_response":"Done."}`},
		{"afterAgentThought has no Noora event", `{` + common + `,"hook_event_name":"afterAgentThought","text":"hmm","duration_ms":5}`, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := Decode(Cursor, []byte(tt.payload))
			if err != nil {
				t.Fatal(err)
			}
			if in.NooraEvent() != tt.event || jsonOf(in.Kwargs) != tt.kwargs {
				t.Errorf("Decode = %s %s\nwant %s %s", in.NooraEvent(), jsonOf(in.Kwargs), tt.event, tt.kwargs)
			}
		})
	}
}

func TestDecodeRefusesWhatIsNotAPayload(t *testing.T) {
	for _, payload := range []string{``, `[]`, `{"tool_name":"Bash"}`, `{"hook_event_name":7}`, `{oops`} {
		if _, err := Decode(Claude, []byte(payload)); err == nil {
			t.Errorf("Decode(%q) succeeded", payload)
		}
	}
	if _, err := Decode(Claude, []byte(`{}`)); !errors.Is(err, ErrNoEventName) {
		t.Errorf("Decode({}) = %v, want ErrNoEventName", err)
	}
}

// The answer each tool gets for each combined Noora answer.
func TestEncode(t *testing.T) {
	combined := func(event, answer string) protocol.Combined {
		c := protocol.Combined{Event: event}
		if answer != "" {
			o, _ := protocol.ParseObject([]byte(answer))
			c.Answer = o
		}
		return c
	}
	tests := []struct {
		name, dialect, payload string
		answer                 string
		want                   string
		warns                  int
	}{
		{"a block is a Claude deny", Claude, `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf /"}}`,
			`{"action":"block","message":"no"}`,
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}`, 0},
		{"an approval is a Claude ask", Claude, `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git push"}}`,
			`{"action":"approve","message":"pushing to main"}`,
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"pushing to main"}}`, 0},
		{"a rewrite is updatedInput without a decision, whole and in Claude's keys", Claude, `{"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"a","content":"x"}}`,
			`{"action":"modify","args":{"path":"b","content":"x"}}`,
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"file_path":"b","content":"x"}}}`, 0},
		{"an approval with rewritten args asks with the new input", Claude, `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git push -f"}}`,
			`{"action":"approve","message":"for the model","user_message":"Force push? Check it.","args":{"command":"git push"}}`,
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"Force push? Check it.","updatedInput":{"command":"git push"}}}`, 0},
		{"a stop before a tool call is continue false with the deny", Claude, `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git commit"}}`,
			`{"action":"block","message":"tests fail","stop":true,"stop_reason":"Fix the tests first"}`,
			`{"continue":false,"stopReason":"Fix the tests first","hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"tests fail"}}`, 0},
		{"a stop on a prompt is continue false", Claude, `{"hook_event_name":"UserPromptSubmit","prompt":"hi"}`,
			`{"stop":true,"stop_reason":"session frozen"}`,
			`{"continue":false,"stopReason":"session frozen"}`, 0},
		{"a stop at the verify gate wins over continuing", Claude, `{"hook_event_name":"Stop","stop_hook_active":false}`,
			`{"action":"continue","message":"run the tests","stop":true}`,
			`{"continue":false}`, 0},
		{"context after a tool call is PostToolUse additionalContext", Claude, `{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_response":{"stdout":"a"}}`,
			`{"context":"lint: 2 warnings"}`,
			`{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"lint: 2 warnings"}}`, 0},
		{"context after a failed call is PostToolUseFailure additionalContext", Claude, `{"hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"make"},"error":"exit 2"}`,
			`{"context":"make needs go 1.26"}`,
			`{"hookSpecificOutput":{"hookEventName":"PostToolUseFailure","additionalContext":"make needs go 1.26"}}`, 0},
		{"no answer is no output, never allow", Claude, `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{}}`, ``, ``, 0},
		{"context is additionalContext", Claude, `{"hook_event_name":"UserPromptSubmit","prompt":"hi"}`,
			`{"context":"Branch main"}`,
			`{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"Branch main"}}`, 0},
		{"continue at the verify gate blocks the Stop", Claude, `{"hook_event_name":"Stop","stop_hook_active":false}`,
			`{"action":"continue","message":"run the tests"}`, `{"decision":"block","reason":"run the tests"}`, 0},
		{"an observer answers nothing", Claude, `{"hook_event_name":"SessionStart","source":"startup"}`, ``, ``, 0},
		{"an unmapped Claude event answers nothing, with a warning", Claude, `{"hook_event_name":"PreCompact"}`, ``, ``, 1},
		{"a block is a Cursor deny", Cursor, `{"hook_event_name":"beforeShellExecution","command":"git push"}`,
			`{"action":"block","message":"no pushing"}`,
			`{"permission":"deny","user_message":"no pushing","agent_message":"no pushing"}`, 0},
		{"an approval is a Cursor ask", Cursor, `{"hook_event_name":"beforeMCPExecution","tool_name":"q","tool_input":"{}"}`,
			`{"action":"approve","message":"writes to the database"}`,
			`{"permission":"ask","user_message":"writes to the database","agent_message":"writes to the database"}`, 0},
		{"a rewrite Cursor cannot take asks, with a warning", Cursor, `{"hook_event_name":"beforeShellExecution","command":"npm i"}`,
			`{"action":"modify","args":{"command":"npm ci"}}`,
			`{"permission":"ask","user_message":"` + rewroteMessage + `","agent_message":"` + rewroteMessage + `"}`, 1},
		{"a read that needs approval is refused", Cursor, `{"hook_event_name":"beforeReadFile","file_path":"/p/.env"}`,
			`{"action":"approve","message":"secrets"}`,
			`{"permission":"deny","user_message":"secrets (Cursor cannot ask before reading a file, so the read is refused)","agent_message":"secrets (Cursor cannot ask before reading a file, so the read is refused)"}`, 0},
		{"Cursor's two messages stay apart", Cursor, `{"hook_event_name":"beforeShellExecution","command":"git push"}`,
			`{"action":"block","message":"Do not push; open a PR with gh pr create.","user_message":"Push blocked by policy."}`,
			`{"permission":"deny","user_message":"Push blocked by policy.","agent_message":"Do not push; open a PR with gh pr create."}`, 0},
		{"a stop before a Cursor prompt is continue false", Cursor, `{"hook_event_name":"beforeSubmitPrompt","prompt":"x"}`,
			`{"stop":true,"stop_reason":"frozen"}`, `{"continue":false,"user_message":"frozen"}`, 0},
		{"a stop before a Cursor shell call denies it, with a warning", Cursor, `{"hook_event_name":"beforeShellExecution","command":"ls"}`,
			`{"action":"block","message":"ending","stop":true,"stop_reason":"ending"}`,
			`{"permission":"deny","user_message":"ending","agent_message":"ending"}`, 1},
		{"context after a Cursor tool call is dropped with a warning", Cursor, `{"hook_event_name":"afterShellExecution","command":"ls","output":"a"}`,
			`{"context":"lint: 2 warnings"}`, `{}`, 1},
		{"no answer is an empty object, never allow", Cursor, `{"hook_event_name":"beforeShellExecution","command":"ls"}`, ``, `{}`, 0},
		{"continue at stop is a follow-up", Cursor, `{"hook_event_name":"stop","status":"completed","loop_count":0}`,
			`{"action":"continue","message":"now lint"}`, `{"followup_message":"now lint"}`, 0},
		{"context before a Cursor prompt is dropped with a warning", Cursor, `{"hook_event_name":"beforeSubmitPrompt","prompt":"x"}`,
			`{"context":"Branch main"}`, `{}`, 1},
		{"an unmapped Cursor event answers {} with a warning", Cursor, `{"hook_event_name":"afterTabFileEdit"}`, ``, `{}`, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := Decode(tt.dialect, []byte(tt.payload))
			if err != nil {
				t.Fatal(err)
			}
			out := Encode(in, combined(in.NooraEvent(), tt.answer))
			if got := strings.TrimSpace(string(out.Stdout)); got != tt.want {
				t.Errorf("stdout\n got %s\nwant %s", got, tt.want)
			}
			if len(out.Warnings) != tt.warns {
				t.Errorf("warnings %q, want %d", out.Warnings, tt.warns)
			}
		})
	}
}
