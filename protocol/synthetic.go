package protocol

import (
	"fmt"
	"sync"
)

// Synthetic values shared by the payloads below, so that a hook author can
// recognise a test firing at a glance.
const (
	SyntheticTool    = "terminal"
	SyntheticSession = "test-session"
)

// synthetic holds, for every event of the catalogue, realistic keyword
// arguments with the fields the Noora guide's "Shipped plugin-hook catalog"
// lists for it, in that order. `noora-hooks test` and `doctor` fire hooks with
// them. Tool events call the terminal tool with `echo hello`; every id starts
// with "test-" so that a hook's logs show it was a test.
var synthetic = map[string]string{
	PreToolCall: `{"tool_name": "terminal", "args": {"command": "echo hello"}, "task_id": "test-task",
		"session_id": "test-session", "tool_call_id": "test-call-1", "turn_id": "test-turn-1",
		"api_request_id": "test-request-1", "middleware_trace": []}`,
	PostToolCall: `{"tool_name": "terminal", "args": {"command": "echo hello"},
		"result": "{\"output\": \"hello\\n\", \"exit_code\": 0}", "task_id": "test-task",
		"session_id": "test-session", "tool_call_id": "test-call-1", "turn_id": "test-turn-1",
		"api_request_id": "test-request-1", "duration_ms": 12, "status": "success",
		"error_type": null, "error_message": null, "middleware_trace": []}`,
	TransformToolResult: `{"tool_name": "terminal", "args": {"command": "echo hello"},
		"result": "{\"output\": \"hello\\n\", \"exit_code\": 0}", "task_id": "test-task",
		"session_id": "test-session", "tool_call_id": "test-call-1", "turn_id": "test-turn-1",
		"api_request_id": "test-request-1", "duration_ms": 12, "status": "success",
		"error_type": null, "error_message": null}`,
	TransformTerminalOutput: `{"command": "echo hello", "output": "hello\n", "returncode": 0,
		"task_id": "test-task", "env_type": "local"}`,
	PreTranscription: `{"file_path": "/tmp/test-recording.ogg", "provider": "openai", "model": "whisper-1",
		"language": "en", "prompt": null, "source": "voice_mode"}`,
	PreLLMCall: `{"session_id": "test-session", "task_id": "test-task", "turn_id": "test-turn-1",
		"user_message": "hello", "conversation_history": [{"role": "user", "content": "hello"}],
		"is_first_turn": true, "model": "test-model", "platform": "cli", "parent_session_id": null,
		"sender_id": "test-user"}`,
	"post_llm_call": `{"session_id": "test-session", "task_id": "test-task", "turn_id": "test-turn-1",
		"user_message": "hello", "assistant_response": "Hello! How can I help?",
		"conversation_history": [{"role": "user", "content": "hello"},
			{"role": "assistant", "content": "Hello! How can I help?"}],
		"model": "test-model", "platform": "cli"}`,
	TransformLLMOutput: `{"response_text": "Hello! How can I help?", "session_id": "test-session",
		"model": "test-model", "platform": "cli"}`,
	PreVerify: `{"session_id": "test-session", "platform": "cli", "model": "test-model", "coding": true,
		"attempt": 0, "final_response": "I fixed the bug in main.go.", "changed_paths": ["main.go"]}`,
	"pre_api_request": `{"task_id": "test-task", "turn_id": "test-turn-1", "api_request_id": "test-request-1",
		"session_id": "test-session", "user_message": "hello",
		"conversation_history": [{"role": "user", "content": "hello"}], "platform": "cli",
		"model": "test-model", "provider": "test-provider", "base_url": "https://api.example.com/v1",
		"api_mode": "chat_completions", "api_call_count": 1, "retry_count": 0,
		"request_messages": [{"role": "user", "content": "hello"}], "message_count": 1, "tool_count": 0,
		"approx_input_tokens": 2, "request_char_count": 5, "max_tokens": 4096,
		"started_at": 1767225600.0, "middleware_trace": [],
		"request": {"model": "test-model", "messages": [{"role": "user", "content": "hello"}]}}`,
	"post_api_request": `{"task_id": "test-task", "turn_id": "test-turn-1", "api_request_id": "test-request-1",
		"session_id": "test-session", "platform": "cli", "model": "test-model", "provider": "test-provider",
		"base_url": "https://api.example.com/v1", "api_mode": "chat_completions", "api_call_count": 1,
		"api_duration": 0.42, "started_at": 1767225600.0, "ended_at": 1767225600.42,
		"finish_reason": "stop", "message_count": 1, "response_model": "test-model",
		"response": {"id": "test-response-1", "model": "test-model",
			"choices": [{"message": {"role": "assistant", "content": "Hello! How can I help?"}, "finish_reason": "stop"}]},
		"usage": {"prompt_tokens": 2, "completion_tokens": 7, "total_tokens": 9},
		"assistant_message": {"role": "assistant", "content": "Hello! How can I help?"},
		"assistant_content_chars": 22, "assistant_tool_call_count": 0}`,
	"api_request_error": `{"task_id": "test-task", "turn_id": "test-turn-1", "api_request_id": "test-request-1",
		"session_id": "test-session", "platform": "cli", "model": "test-model", "provider": "test-provider",
		"base_url": "https://api.example.com/v1", "api_mode": "chat_completions", "api_call_count": 1,
		"api_duration": 0.21, "started_at": 1767225600.0, "ended_at": 1767225600.21, "status_code": 429,
		"retry_count": 0, "max_retries": 3, "retryable": true, "reason": "rate_limit",
		"error": "429 Too Many Requests: rate limit reached",
		"request": {"model": "test-model", "messages": [{"role": "user", "content": "hello"}]}}`,
	"on_stream_start": `{"turn_id": "test-turn-1", "iteration": 1, "session_id": "test-session",
		"model": "test-model", "provider": "test-provider", "surface": "cli"}`,
	"on_stream_delta": `{"delta": "Hello", "kind": "text", "turn_id": "test-turn-1", "iteration": 1,
		"session_id": "test-session", "model": "test-model", "provider": "test-provider", "surface": "cli"}`,
	"on_stream_end": `{"final_text": "Hello! How can I help?", "finished": true, "error": null,
		"turn_id": "test-turn-1", "iteration": 1, "session_id": "test-session", "model": "test-model",
		"provider": "test-provider", "surface": "cli"}`,
	"on_interim_message": `{"text": "Let me look at the code first.", "already_streamed": false,
		"turn_id": "test-turn-1", "iteration": 1, "session_id": "test-session", "model": "test-model",
		"provider": "test-provider", "surface": "cli"}`,
	TransformAPIErrorClassification: `{"provider": "test-provider", "model": "test-model", "status_code": 429,
		"error_type": "RateLimitError", "error_code": "rate_limit_exceeded",
		"error_message": "Rate limit reached for test-model",
		"error_body": {"error": {"type": "rate_limit_exceeded", "message": "Rate limit reached for test-model"}},
		"error": "RateLimitError: Rate limit reached for test-model", "approx_tokens": 1200,
		"context_length": 128000, "num_messages": 4}`,
	"on_session_start": `{"session_id": "test-session", "model": "test-model", "platform": "cli"}`,
	"on_session_end": `{"session_id": "test-session", "task_id": "test-task", "turn_id": "test-turn-1",
		"completed": true, "failed": false, "interrupted": false, "turn_exit_reason": "completed",
		"model": "test-model", "platform": "cli"}`,
	"on_session_finalize": `{"session_id": "test-session", "platform": "cli", "reason": "exit"}`,
	"on_session_reset":    `{"session_id": "test-session", "platform": "cli", "reason": "new_session"}`,
	"on_skill_lifecycle": `{"action": "used", "skill_name": "test-skill", "provenance": "local",
		"task_id": "test-task", "session_id": "test-session", "use_count": 1, "reused": false,
		"reuse_after_patch": false}`,
	"subagent_start": `{"parent_session_id": "test-session", "parent_turn_id": "test-turn-1",
		"parent_subagent_id": null, "child_session_id": "test-child-session",
		"child_subagent_id": "test-subagent-1", "child_role": "researcher",
		"child_goal": "Find where the config file is parsed."}`,
	"subagent_stop": `{"parent_session_id": "test-session", "parent_turn_id": "test-turn-1",
		"child_session_id": "test-child-session", "child_role": "researcher",
		"child_summary": "The config file is parsed in config/config.go.", "child_status": "completed",
		"tool_call_history": [{"tool_name": "terminal", "status": "success"}], "duration_ms": 1500}`,
	PreGatewayDispatch: `{"event": {"text": "hello", "message_id": "test-message-1", "internal": false,
			"source": {"platform": "telegram", "chat_id": "test-chat", "chat_type": "dm", "user_id": "test-user"}},
		"gateway": "<GatewayRunner>", "session_store": "<SessionStore>"}`,
	"gateway_platform_event": `{"platform": "telegram", "event_type": "reaction",
		"payload": {"emojis": ["👍"], "custom_emoji_ids": [], "chat_id": "test-chat",
			"message_id": "test-message-1", "thread_id": null}}`,
	"pre_command": `{"surface": "cli", "command": "help", "alias_used": null, "args_raw": "",
		"session_key": "test-session", "platform": "cli"}`,
	"pre_approval_request": `{"command": "rm -rf build", "description": "recursive delete",
		"pattern_key": "rm_rf", "pattern_keys": ["rm_rf"], "session_key": "test-session", "surface": "cli",
		"turn_id": "test-turn-1", "tool_call_id": "test-call-1"}`,
	"post_approval_response": `{"command": "rm -rf build", "description": "recursive delete",
		"pattern_key": "rm_rf", "pattern_keys": ["rm_rf"], "session_key": "test-session", "surface": "cli",
		"turn_id": "test-turn-1", "tool_call_id": "test-call-1", "choice": "once"}`,
	"kanban_task_claimed": `{"task_id": "test-task", "profile_name": "default", "board": "test-board",
		"assignee": "test-worker", "run_id": "test-run-1"}`,
	"kanban_task_completed": `{"task_id": "test-task", "profile_name": "default", "board": "test-board",
		"assignee": "test-worker", "run_id": "test-run-1", "summary": "Fixed the failing test."}`,
	"kanban_task_blocked": `{"task_id": "test-task", "profile_name": "default", "board": "test-board",
		"assignee": "test-worker", "run_id": "test-run-1", "reason": "Waiting for test-task-0."}`,
	"on_kanban_worker_spawned": `{"task_id": "test-task", "profile_name": "default", "board": "test-board",
		"assignee": "test-worker", "run_id": "test-run-1", "worker_pid": 4242,
		"workspace_path": "/tmp/test-workspace"}`,
	"on_kanban_worker_exited": `{"task_id": "test-task", "profile_name": "default", "board": "test-board",
		"assignee": "test-worker", "run_id": "test-run-1", "worker_pid": 4242, "exit_kind": "crashed",
		"exit_code": 1, "outcome": "reclaimed", "retry_status": "will_retry"}`,
	"on_kanban_worker_stale_claim": `{"task_id": "test-task", "profile_name": "default", "board": "test-board",
		"assignee": "test-worker", "run_id": "test-run-1", "worker_pid": 4242, "heartbeat_stale": true,
		"retry_status": "will_retry"}`,
	"on_kanban_task_updated": `{"task_id": "test-task", "profile_name": "default", "board": "test-board",
		"assignee": "test-worker", "run_id": "test-run-1", "changed_fields": ["assignee"]}`,
	"on_kanban_dispatch_tick": `{"board": "test-board", "profile_name": "default", "dry_run": false,
		"outcome": "idle", "result": {"spawned": [], "reclaimed": [], "skipped": []}}`,
}

// parsedSynthetic is synthetic, parsed on first use (not at start-up: exec
// never needs it); a table entry that is not a JSON object is a bug caught here
// and by the package's tests.
var parsedSynthetic = sync.OnceValue(func() map[string]Kwargs {
	out := make(map[string]Kwargs, len(synthetic))
	for event, text := range synthetic {
		kw, err := ParseObject([]byte(text))
		if err != nil {
			panic(fmt.Sprintf("protocol: synthetic payload of %s: %v", event, err))
		}
		out[event] = kw
	}
	return out
})

// Synthetic returns realistic keyword arguments for event, for firing hooks
// outside the agent (`noora-hooks test`, `doctor`). The result is a copy the
// caller may change. ok is false for an event that is not in the catalogue.
func Synthetic(event string) (kw Kwargs, ok bool) {
	kw, ok = parsedSynthetic()[event]
	return kw.Clone(), ok
}

// Merge returns base with every member of over set: replaced in place when
// base has it, appended otherwise. Neither argument is changed.
func Merge(base, over Object) Object {
	out := base.Clone()
	for _, f := range over {
		out = out.With(f.Key, f.Value)
	}
	return out
}
