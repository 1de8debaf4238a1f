package compat

import (
	"strings"
	"testing"

	"github.com/noora-hooks/noora-hooks/internal/dispatch"
	"github.com/noora-hooks/noora-hooks/internal/runner"

	"github.com/noora-hooks/noora-hooks/internal/config"
	"github.com/noora-hooks/noora-hooks/protocol"
)

func testCall(t *testing.T, event, kwargs string) dispatch.Call {
	t.Helper()
	ev, ok := protocol.Lookup(event)
	if !ok {
		t.Fatalf("unknown event %s", event)
	}
	kw, err := protocol.ParseObject([]byte(kwargs))
	if err != nil {
		t.Fatalf("bad kwargs %s: %v", kwargs, err)
	}
	return dispatch.Call{Event: ev, Kwargs: kw, Cwd: "/home/u/proj", Home: "/home/u/.noora", Env: []string{"PATH=/bin"}}
}

func hook(event, dialectEvent, matcher string) config.ShellHook {
	h := config.ShellHook{Event: event, Command: "x", Dialect: Claude, DialectEvent: dialectEvent}
	if matcher != "" {
		h.Matcher = config.NewMatcher(matcher)
	}
	return h
}

// Each Noora event a Claude hook can run on, and the payload it reads.
func TestClaudePayload(t *testing.T) {
	const common = `"cwd":"/home/u/proj","permission_mode":"default"`
	tests := []struct {
		name, event, dialectEvent, kwargs, want string
	}{
		{"a terminal call is a Bash PreToolUse", "pre_tool_call", "",
			`{"tool_name":"terminal","args":{"command":"rm -rf /"},"task_id":"t1","session_id":"s1","tool_call_id":"c1"}`,
			`{"session_id":"s1",` + common + `,"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf /"},"tool_use_id":"c1"}`},
		{"what Claude sent comes back (transcript, permission mode)", "pre_tool_call", "",
			`{"tool_name":"write_file","args":{"path":"a.txt","content":"x"},"session_id":"s1","transcript_path":"/t.jsonl","permission_mode":"plan"}`,
			`{"session_id":"s1","transcript_path":"/t.jsonl","cwd":"/home/u/proj","permission_mode":"plan","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"a.txt","content":"x"}}`},
		{"a read's result is Read's tool_response", "post_tool_call", "",
			`{"tool_name":"read_file","args":{"path":"a"},"result":"{\"content\":\"hi\\nthere\\n\",\"total_lines\":9}","status":"success","session_id":"s1"}`,
			`{"session_id":"s1",` + common + `,"hook_event_name":"PostToolUse","tool_name":"Read","tool_input":{"file_path":"a"},"tool_response":{"type":"text","file":{"filePath":"a","content":"hi\nthere\n","numLines":3,"startLine":1,"totalLines":9}}}`},
		{"a terminal result is Bash's tool_response: scripts read .tool_response.stdout", "post_tool_call", "",
			`{"tool_name":"terminal","args":{"command":"make"},"result":"{\"output\": \"ok\\n\", \"exit_code\": 0, \"error\": null}","status":"success","session_id":"s1"}`,
			`{"session_id":"s1",` + common + `,"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"make"},"tool_response":{"stdout":"ok\n","stderr":"","interrupted":false,"isImage":false,"noOutputExpected":false}}`},
		{"another tool's JSON result is its tool_response as it is", "post_tool_call", "",
			`{"tool_name":"web_search","args":{"query":"go"},"result":"{\"results\":[]}","status":"success","session_id":"s1"}`,
			`{"session_id":"s1",` + common + `,"hook_event_name":"PostToolUse","tool_name":"WebSearch","tool_input":{"query":"go"},"tool_response":{"results":[]}}`},
		{"a failed call is PostToolUseFailure with its error", "post_tool_call", "",
			`{"tool_name":"terminal","args":{"command":"false"},"result":"exit 1","status":"error","error_message":"command failed","session_id":"s1"}`,
			`{"session_id":"s1",` + common + `,"hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"false"},"error":"command failed"}`},
		{"the user's message is the prompt", "pre_llm_call", "",
			`{"session_id":"s1","user_message":"fix the bug","is_first_turn":true}`,
			`{"session_id":"s1",` + common + `,"hook_event_name":"UserPromptSubmit","prompt":"fix the bug"}`},
		{"the verify gate is Stop, a first attempt not yet active", "pre_verify", "",
			`{"session_id":"s1","attempt":0,"final_response":"Done."}`,
			`{"session_id":"s1",` + common + `,"hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"Done."}`},
		{"a nudged turn has the stop hook active", "pre_verify", "",
			`{"session_id":"s1","attempt":2}`,
			`{"session_id":"s1",` + common + `,"hook_event_name":"Stop","stop_hook_active":true}`},
		{"a subagent's parent session is the session", "subagent_start", "",
			`{"parent_session_id":"p1","child_subagent_id":"a7","child_role":"Explore","child_goal":"look"}`,
			`{"session_id":"p1",` + common + `,"hook_event_name":"SubagentStart","agent_id":"a7","agent_type":"Explore"}`},
		{"a finished subagent's summary is its last message", "subagent_stop", "",
			`{"parent_session_id":"p1","child_session_id":"c9","child_role":"Plan","child_summary":"ok"}`,
			`{"session_id":"p1",` + common + `,"hook_event_name":"SubagentStop","stop_hook_active":false,"agent_id":"c9","agent_type":"Plan","last_assistant_message":"ok"}`},
		{"a session start is a startup unless said otherwise", "on_session_start", "",
			`{"session_id":"s1","model":"m","platform":"cli"}`,
			`{"session_id":"s1",` + common + `,"hook_event_name":"SessionStart","source":"startup","model":"m"}`},
		{"a session end has a reason", "on_session_end", "",
			`{"session_id":"s1","completed":true}`,
			`{"session_id":"s1",` + common + `,"hook_event_name":"SessionEnd","reason":"other"}`},
		{"an approval request is a Bash PermissionRequest", "pre_approval_request", "",
			`{"command":"rm -rf build","description":"recursive delete","session_key":"k"}`,
			`{"session_id":"",` + common + `,"hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"rm -rf build","description":"recursive delete"}}`},
		{"an approval request told as a Notification", "pre_approval_request", "Notification",
			`{"command":"rm -rf build"}`,
			`{"session_id":"",` + common + `,"hook_event_name":"Notification","message":"Noora needs your approval to run: rm -rf build","notification_type":"permission_prompt"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			call := testCall(t, tt.event, tt.kwargs)
			got := strings.TrimSpace(string(claudeDialect.Stdin(hook(tt.event, tt.dialectEvent, ""), call)))
			if got != tt.want {
				t.Errorf("payload\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestClaudeApplies(t *testing.T) {
	tests := []struct {
		name, event, dialectEvent, matcher, kwargs string
		want                                       bool
	}{
		{"a Bash matcher takes a terminal call", "pre_tool_call", "", "Bash", `{"tool_name":"terminal"}`, true},
		{"a Bash matcher skips a read", "pre_tool_call", "", "Bash", `{"tool_name":"read_file"}`, false},
		{"Edit|Write takes a patch", "pre_tool_call", "", "Edit|Write", `{"tool_name":"patch","args":{"path":"a"}}`, true},
		{"an MCP expression takes Noora's MCP tool", "pre_tool_call", "", "mcp__github__.*", `{"tool_name":"mcp_github_create_issue"}`, true},
		{"a SessionStart matcher filters on the source", "on_session_start", "", "resume", `{"source":"startup"}`, false},
		{"a startup matcher takes a fresh session", "on_session_start", "", "startup", `{}`, true},
		{"a matcher on Stop is ignored as Claude ignores it", "pre_verify", "", "Bash", `{}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok, problem := claudeDialect.Applies(hook(tt.event, tt.dialectEvent, tt.matcher), testCall(t, tt.event, tt.kwargs))
			if ok != tt.want || problem != "" {
				t.Errorf("Applies = %v %q, want %v", ok, problem, tt.want)
			}
		})
	}
}

func TestClaudeEnvNamesTheProject(t *testing.T) {
	call := testCall(t, "pre_tool_call", `{}`)
	if got := claudeDialect.Env(hook("pre_tool_call", "", ""), call); len(got) != 1 || got[0] != "CLAUDE_PROJECT_DIR=/home/u/proj" {
		t.Errorf("Env = %v, want the working directory", got)
	}
	call.Env = append(call.Env, "CLAUDE_PROJECT_DIR=/elsewhere")
	if got := claudeDialect.Env(hook("pre_tool_call", "", ""), call); got[0] != "CLAUDE_PROJECT_DIR=/elsewhere" {
		t.Errorf("Env = %v, want the value Claude Code set", got)
	}
}

// How a Claude hook's answer reads, by event, exit status and output.
func TestClaudeRead(t *testing.T) {
	type want struct {
		kind     protocol.Kind
		message  string
		text     string
		args     string
		failed   bool
		unusable bool
		warns    int
		stop     bool
		reason   string
	}
	longReason := "Commits on main are not allowed. " + strings.Repeat("Create a branch with git switch -c, commit there, and open a pull request. ", 9) + "END"
	tests := []struct {
		name, event, kwargs string
		code                int
		stdout, stderr      string
		want                want
	}{
		{"exit 2 on PreToolUse blocks with stderr", "pre_tool_call", `{"tool_name":"terminal"}`, 2, `{"decision":"approve"}`, "no rm -rf\n",
			want{kind: protocol.Block, message: "no rm -rf"}},
		{"exit 2 with no stderr blocks with the default message", "pre_tool_call", `{}`, 2, "", "",
			want{kind: protocol.Block, message: protocol.DefaultBlockMessage}},
		{"a deny blocks with its reason", "pre_tool_call", `{}`, 0,
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"not in prod"}}`, "",
			want{kind: protocol.Block, message: "not in prod"}},
		{"ask asks Noora's approval", "pre_tool_call", `{}`, 0,
			`{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"sure?"}}`, "",
			want{kind: protocol.Approve, message: "sure?"}},
		{"allow is no answer: nothing skips Noora's approval", "pre_tool_call", `{}`, 0,
			`{"hookSpecificOutput":{"permissionDecision":"allow","permissionDecisionReason":"fine"}}`, "",
			want{kind: protocol.None}},
		{"updatedInput is a modify in Noora's keys", "pre_tool_call", `{"tool_name":"write_file","args":{"path":"a","content":"x"}}`, 0,
			`{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"file_path":"b","content":"x"}}}`, "",
			want{kind: protocol.Modify, args: `{"path":"b","content":"x"}`}},
		{"updatedInput on an edit keeps the call's mode", "pre_tool_call", `{"tool_name":"patch","args":{"mode":"patch","path":"a","patch":"p"}}`, 0,
			`{"hookSpecificOutput":{"updatedInput":{"file_path":"b"}}}`, "",
			want{kind: protocol.Modify, args: `{"path":"b"}`}},
		{"the older decision block still blocks", "pre_tool_call", `{}`, 0, `{"decision":"block","reason":"old style"}`, "",
			want{kind: protocol.Block, message: "old style"}},
		{"continue false blocks the tool call and stops the agent", "pre_tool_call", `{}`, 0, `{"continue":false,"stopReason":"build is red"}`, "",
			want{kind: protocol.Block, message: "build is red", stop: true, reason: "build is red"}},
		{"continue false with a deny blocks with the deny's reason", "pre_tool_call", `{}`, 0,
			`{"continue":false,"stopReason":"Ask a human","hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"secrets in the diff"}}`, "",
			want{kind: protocol.Block, message: "secrets in the diff", stop: true, reason: "Ask a human"}},
		{"continue false on a prompt stops the agent", "pre_llm_call", `{}`, 0, `{"continue":false,"stopReason":"frozen"}`, "",
			want{kind: protocol.None, stop: true, reason: "frozen"}},
		{"exit 2 on PreToolUse keeps the whole stderr, as Claude does", "pre_tool_call", `{}`, 2, "", longReason + "\n",
			want{kind: protocol.Block, message: longReason}},
		{"additionalContext before a tool has no counterpart", "pre_tool_call", `{}`, 0,
			`{"hookSpecificOutput":{"additionalContext":"note"}}`, "", want{kind: protocol.None, warns: 1}},
		{"plain text on PreToolUse is a log, not an answer", "pre_tool_call", `{}`, 0, "checked 3 files\n", "",
			want{kind: protocol.None, unusable: true}},
		{"broken JSON on PreToolUse is a warning", "pre_tool_call", `{}`, 0, `{"hookSpecificOutput":`, "",
			want{kind: protocol.None, unusable: true, warns: 1}},
		{"exit 1 is a failure whose JSON is not read", "pre_tool_call", `{}`, 1, `{"decision":"block","reason":"x"}`, "oops",
			want{kind: protocol.None, failed: true}},
		{"plain text on UserPromptSubmit is context", "pre_llm_call", `{}`, 0, "Branch: main\nDirty: 2 files\n", "",
			want{kind: protocol.Context, text: "Branch: main\nDirty: 2 files"}},
		{"additionalContext on UserPromptSubmit is context", "pre_llm_call", `{}`, 0,
			`{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"Today is Friday"}}`, "",
			want{kind: protocol.Context, text: "Today is Friday"}},
		{"rejecting a prompt cannot be done in Noora", "pre_llm_call", `{}`, 0, `{"decision":"block","reason":"secret in prompt"}`, "",
			want{kind: protocol.None, warns: 1}},
		{"exit 2 on a prompt is a warning, not a failure", "pre_llm_call", `{}`, 2, "", "secret in prompt",
			want{kind: protocol.None, warns: 1}},
		{"a Stop block keeps the agent going", "pre_verify", `{}`, 0, `{"decision":"block","reason":"run the tests first"}`, "",
			want{kind: protocol.Continue, message: "run the tests first"}},
		{"exit 2 on Stop keeps going with stderr", "pre_verify", `{}`, 2, "", "tests fail\n",
			want{kind: protocol.Continue, message: "tests fail"}},
		{"a Stop block without a reason is a warning", "pre_verify", `{}`, 0, `{"decision":"block"}`, "",
			want{kind: protocol.None, warns: 1}},
		{"continue false on Stop is a stop", "pre_verify", `{}`, 0, `{"continue":false,"stopReason":"done"}`, "",
			want{kind: protocol.None, stop: true, reason: "done"}},
		{"plain text on SessionStart is context, which goes nowhere in Noora", "on_session_start", `{}`, 0, "Project notes", "",
			want{kind: protocol.Context, text: "Project notes", warns: 1}},
		{"a PermissionRequest decision has no counterpart", "pre_approval_request", `{"command":"ls"}`, 0,
			`{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"no"}}}`, "",
			want{kind: protocol.None, warns: 1}},
		{"a PostToolUse block's reason is context for the model", "post_tool_call", `{"status":"success"}`, 0, `{"decision":"block","reason":"lint failed"}`, "",
			want{kind: protocol.Context, text: "lint failed"}},
		{"PostToolUse additionalContext is context for the model", "post_tool_call", `{"status":"success"}`, 0,
			`{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"formatted 2 files"}}`, "",
			want{kind: protocol.Context, text: "formatted 2 files"}},
		{"exit 2 after a tool call gives the model stderr", "post_tool_call", `{"status":"success"}`, 2, "", "3 type errors\n",
			want{kind: protocol.Context, text: "3 type errors"}},
		{"exit 2 on SessionEnd shows stderr as a failure", "on_session_end", `{}`, 2, "", "x",
			want{kind: protocol.None, failed: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			call := testCall(t, tt.event, tt.kwargs)
			out := runner.Outcome{End: runner.Exited, Code: tt.code, Stdout: []byte(tt.stdout), Stderr: []byte(tt.stderr)}
			r := claudeDialect.Read(hook(tt.event, "", ""), call, out)
			a := r.Answer
			if a.Kind != tt.want.kind || a.Message != tt.want.message || a.Text != tt.want.text || jsonOf(a.Args) != tt.want.args {
				t.Errorf("answer = %v %q %q %s, want %v %q %q %s", a.Kind, a.Message, a.Text, jsonOf(a.Args),
					tt.want.kind, tt.want.message, tt.want.text, tt.want.args)
			}
			if a.Stop != tt.want.stop || a.StopReason != tt.want.reason {
				t.Errorf("stop %v %q, want %v %q", a.Stop, a.StopReason, tt.want.stop, tt.want.reason)
			}
			if r.Failed != tt.want.failed || r.Unusable != tt.want.unusable || len(r.Warnings) != tt.want.warns {
				t.Errorf("failed %v unusable %v warnings %q; want %v %v %d", r.Failed, r.Unusable, r.Warnings, tt.want.failed, tt.want.unusable, tt.want.warns)
			}
		})
	}
}
