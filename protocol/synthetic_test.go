package protocol

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// catalogFields are the payload fields of each event as the Noora guide's
// "Shipped plugin-hook catalog" lists them, in its order.
var catalogFields = map[string]string{
	"pre_tool_call":                      "tool_name, args, task_id, session_id, tool_call_id, turn_id, api_request_id, middleware_trace",
	"post_tool_call":                     "tool_name, args, result, task_id, session_id, tool_call_id, turn_id, api_request_id, duration_ms, status, error_type, error_message, middleware_trace",
	"transform_tool_result":              "tool_name, args, result, task_id, session_id, tool_call_id, turn_id, api_request_id, duration_ms, status, error_type, error_message",
	"transform_terminal_output":          "command, output, returncode, task_id, env_type",
	"pre_transcription":                  "file_path, provider, model, language, prompt, source",
	"pre_llm_call":                       "session_id, task_id, turn_id, user_message, conversation_history, is_first_turn, model, platform, parent_session_id, sender_id",
	"post_llm_call":                      "session_id, task_id, turn_id, user_message, assistant_response, conversation_history, model, platform",
	"transform_llm_output":               "response_text, session_id, model, platform",
	"pre_verify":                         "session_id, platform, model, coding, attempt, final_response, changed_paths",
	"pre_api_request":                    "task_id, turn_id, api_request_id, session_id, user_message, conversation_history, platform, model, provider, base_url, api_mode, api_call_count, retry_count, request_messages, message_count, tool_count, approx_input_tokens, request_char_count, max_tokens, started_at, middleware_trace, request",
	"post_api_request":                   "task_id, turn_id, api_request_id, session_id, platform, model, provider, base_url, api_mode, api_call_count, api_duration, started_at, ended_at, finish_reason, message_count, response_model, response, usage, assistant_message, assistant_content_chars, assistant_tool_call_count",
	"api_request_error":                  "task_id, turn_id, api_request_id, session_id, platform, model, provider, base_url, api_mode, api_call_count, api_duration, started_at, ended_at, status_code, retry_count, max_retries, retryable, reason, error, request",
	"on_stream_start":                    "turn_id, iteration, session_id, model, provider, surface",
	"on_stream_delta":                    "delta, kind, turn_id, iteration, session_id, model, provider, surface",
	"on_stream_end":                      "final_text, finished, error, turn_id, iteration, session_id, model, provider, surface",
	"on_interim_message":                 "text, already_streamed, turn_id, iteration, session_id, model, provider, surface",
	"transform_api_error_classification": "provider, model, status_code, error_type, error_code, error_message, error_body, error, approx_tokens, context_length, num_messages",
	"on_session_start":                   "session_id, model, platform",
	"on_session_end":                     "session_id, task_id, turn_id, completed, failed, interrupted, turn_exit_reason, model, platform",
	"on_session_finalize":                "session_id, platform, reason",
	"on_session_reset":                   "session_id, platform, reason",
	"on_skill_lifecycle":                 "action, skill_name, provenance, task_id, session_id, use_count, reused, reuse_after_patch",
	"subagent_start":                     "parent_session_id, parent_turn_id, parent_subagent_id, child_session_id, child_subagent_id, child_role, child_goal",
	"subagent_stop":                      "parent_session_id, parent_turn_id, child_session_id, child_role, child_summary, child_status, tool_call_history, duration_ms",
	"pre_gateway_dispatch":               "event, gateway, session_store",
	"gateway_platform_event":             "platform, event_type, payload",
	"pre_command":                        "surface, command, alias_used, args_raw, session_key, platform",
	"pre_approval_request":               "command, description, pattern_key, pattern_keys, session_key, surface, turn_id, tool_call_id",
	"post_approval_response":             "command, description, pattern_key, pattern_keys, session_key, surface, turn_id, tool_call_id, choice",
	"kanban_task_claimed":                "task_id, profile_name, board, assignee, run_id",
	"kanban_task_completed":              "task_id, profile_name, board, assignee, run_id, summary",
	"kanban_task_blocked":                "task_id, profile_name, board, assignee, run_id, reason",
	"on_kanban_worker_spawned":           "task_id, profile_name, board, assignee, run_id, worker_pid, workspace_path",
	"on_kanban_worker_exited":            "task_id, profile_name, board, assignee, run_id, worker_pid, exit_kind, exit_code, outcome, retry_status",
	"on_kanban_worker_stale_claim":       "task_id, profile_name, board, assignee, run_id, worker_pid, heartbeat_stale, retry_status",
	"on_kanban_task_updated":             "task_id, profile_name, board, assignee, run_id, changed_fields",
	"on_kanban_dispatch_tick":            "board, profile_name, dry_run, outcome, result",
}

func keys(o Object) string {
	names := make([]string, len(o))
	for i, f := range o {
		names[i] = f.Key
	}
	return strings.Join(names, ", ")
}

func TestEveryCatalogueEventHasASyntheticPayload(t *testing.T) {
	for _, event := range EventNames() {
		t.Run(event, func(t *testing.T) {
			kw, ok := Synthetic(event)
			if !ok {
				t.Fatalf("no synthetic payload for %s", event)
			}
			want, documented := catalogFields[event]
			if !documented {
				t.Fatalf("the test lists no catalog fields for %s", event)
			}
			if got := keys(kw); got != want {
				t.Errorf("fields\n got: %s\nwant: %s", got, want)
			}
		})
	}
	if len(synthetic) != len(EventNames()) {
		t.Errorf("%d synthetic payloads for %d events: one is for an event not in the catalogue", len(synthetic), len(EventNames()))
	}
}

func TestSyntheticPayloads(t *testing.T) {
	get := func(t *testing.T, event, path string) gjson.Result {
		t.Helper()
		kw, _ := Synthetic(event)
		b, _ := kw.MarshalJSON()
		return gjson.GetBytes(b, path)
	}
	tests := []struct {
		name, event, path, want string
	}{
		{"A tool call runs echo hello in the terminal", PreToolCall, "args.command", "echo hello"},
		{"A tool call names the terminal tool", PreToolCall, "tool_name", SyntheticTool},
		{"A finished tool call names the terminal tool", PostToolCall, "tool_name", SyntheticTool},
		{"A tool result transform names the terminal tool", TransformToolResult, "tool_name", SyntheticTool},
		{"A terminal output transform ran echo hello", TransformTerminalOutput, "command", "echo hello"},
		{"A session start has the test session", "on_session_start", "session_id", SyntheticSession},
		{"A session end has the test session", "on_session_end", "session_id", SyntheticSession},
		{"A session reset has the test session", "on_session_reset", "session_id", SyntheticSession},
		{"The verify gate is at its first attempt", PreVerify, "attempt", "0"},
		{"The verify gate has a changed path", PreVerify, "changed_paths.0", "main.go"},
		{"A subagent's parent is the test session", "subagent_stop", "parent_session_id", SyntheticSession},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := get(t, tt.event, tt.path); got.String() != tt.want {
				t.Errorf("%s %s = %s, want %s", tt.event, tt.path, got.Raw, tt.want)
			}
		})
	}
}

func TestSyntheticPayloadsGiveTheTestSessionToHooks(t *testing.T) {
	for _, event := range EventNames() {
		kw, _ := Synthetic(event)
		_, hasSession := kw.Get("session_id")
		_, hasParent := kw.Get("parent_session_id")
		if !hasSession && !hasParent {
			continue
		}
		b, _ := Payload(event, kw, "/work").MarshalJSON()
		if got := gjson.GetBytes(b, "session_id").String(); got != SyntheticSession {
			t.Errorf("%s: the hook payload's session_id is %q, want %q", event, got, SyntheticSession)
		}
	}
}

func TestSyntheticReturnsACopy(t *testing.T) {
	kw, _ := Synthetic(PreToolCall)
	kw[0].Value = String("changed")
	again, _ := Synthetic(PreToolCall)
	if name, _ := ToolName(again); name != SyntheticTool {
		t.Errorf("changing one result changed the table: tool_name is now %q", name)
	}
}

func TestMerge(t *testing.T) {
	tests := []struct {
		name, base, over, want string
	}{
		{"A key of the file replaces the synthetic one in place", `{"a":1,"b":2}`, `{"a":3}`, `{"a":3,"b":2}`},
		{"A new key is appended", `{"a":1}`, `{"c":true}`, `{"a":1,"c":true}`},
		{"An empty file changes nothing", `{"a":1}`, `{}`, `{"a":1}`},
		{"Nested objects are replaced whole, not merged", `{"args":{"command":"ls","cwd":"/"}}`, `{"args":{"command":"pwd"}}`, `{"args":{"command":"pwd"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base, _ := ParseObject([]byte(tt.base))
			over, _ := ParseObject([]byte(tt.over))
			before, _ := base.MarshalJSON()
			got, _ := Merge(base, over).MarshalJSON()
			if string(got) != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
			after, _ := base.MarshalJSON()
			if string(before) != string(after) {
				t.Errorf("Merge changed its base: %s became %s", before, after)
			}
		})
	}
}
