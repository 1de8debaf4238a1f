package compat

import (
	"testing"

	"github.com/noora-hooks/noora-hooks/internal/dispatch"

	"github.com/noora-hooks/noora-hooks/internal/config"
	"github.com/noora-hooks/noora-hooks/protocol"
)

func TestEventMap(t *testing.T) {
	tests := []struct {
		name           string
		dialect, event string
		noora          string // "" for none
	}{
		{"PreToolUse is pre_tool_call", Claude, "PreToolUse", "pre_tool_call"},
		{"PostToolUse is post_tool_call", Claude, "PostToolUse", "post_tool_call"},
		{"PostToolUseFailure is post_tool_call too", Claude, "PostToolUseFailure", "post_tool_call"},
		{"UserPromptSubmit is pre_llm_call", Claude, "UserPromptSubmit", "pre_llm_call"},
		{"Stop is pre_verify", Claude, "Stop", "pre_verify"},
		{"SubagentStart is subagent_start", Claude, "SubagentStart", "subagent_start"},
		{"SubagentStop is subagent_stop", Claude, "SubagentStop", "subagent_stop"},
		{"SessionStart is on_session_start", Claude, "SessionStart", "on_session_start"},
		{"SessionEnd is on_session_end", Claude, "SessionEnd", "on_session_end"},
		{"PermissionRequest is pre_approval_request", Claude, "PermissionRequest", "pre_approval_request"},
		{"Notification is pre_approval_request too", Claude, "Notification", "pre_approval_request"},
		{"PreCompact has no counterpart", Claude, "PreCompact", ""},
		{"TeammateIdle has no counterpart", Claude, "TeammateIdle", ""},
		{"beforeShellExecution is pre_tool_call", Cursor, "beforeShellExecution", "pre_tool_call"},
		{"beforeMCPExecution is pre_tool_call", Cursor, "beforeMCPExecution", "pre_tool_call"},
		{"beforeReadFile is pre_tool_call", Cursor, "beforeReadFile", "pre_tool_call"},
		{"afterFileEdit is post_tool_call", Cursor, "afterFileEdit", "post_tool_call"},
		{"afterShellExecution is post_tool_call", Cursor, "afterShellExecution", "post_tool_call"},
		{"afterMCPExecution is post_tool_call", Cursor, "afterMCPExecution", "post_tool_call"},
		{"beforeSubmitPrompt is pre_llm_call", Cursor, "beforeSubmitPrompt", "pre_llm_call"},
		{"stop is pre_verify", Cursor, "stop", "pre_verify"},
		{"afterAgentResponse is post_llm_call", Cursor, "afterAgentResponse", "post_llm_call"},
		{"Tab hooks have no counterpart", Cursor, "beforeTabFileRead", ""},
		{"newer Cursor events are named, not guessed", Cursor, "preToolUse", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev, ok := LookupEvent(tt.dialect, tt.event)
			if !ok {
				t.Fatalf("LookupEvent(%s, %s): not found", tt.dialect, tt.event)
			}
			if ev.Noora != tt.noora {
				t.Errorf("Noora = %q, want %q", ev.Noora, tt.noora)
			}
			if ev.Noora == "" && ev.Missing == "" {
				t.Errorf("an event without a counterpart must say why")
			}
			if ev.Dialect != tt.dialect {
				t.Errorf("Dialect = %q, want %q", ev.Dialect, tt.dialect)
			}
		})
	}
}

func TestEveryMappedEventIsInTheNooraCatalogue(t *testing.T) {
	for _, dialect := range []string{Claude, Cursor} {
		for _, ev := range Events(dialect) {
			if ev.Noora == "" {
				continue
			}
			if _, ok := protocol.Lookup(ev.Noora); !ok {
				t.Errorf("%s %s maps to %q, which is not a Noora event", dialect, ev.Name, ev.Noora)
			}
		}
	}
}

func TestEventForAFiring(t *testing.T) {
	call := func(event string, kw string) dispatch.Call {
		ev, _ := protocol.Lookup(event)
		obj, err := protocol.ParseObject([]byte(kw))
		if err != nil {
			t.Fatal(err)
		}
		return dispatch.Call{Event: ev, Kwargs: obj}
	}
	tests := []struct {
		name         string
		dialect      string
		dialectEvent string
		call         dispatch.Call
		want         string // "" for none
		problem      bool
	}{
		{"a successful tool call is PostToolUse", Claude, "", call("post_tool_call", `{"tool_name":"terminal","status":"success"}`), "PostToolUse", false},
		{"a failed tool call is PostToolUseFailure", Claude, "", call("post_tool_call", `{"tool_name":"terminal","status":"error"}`), "PostToolUseFailure", false},
		{"an error message makes a failure", Claude, "", call("post_tool_call", `{"tool_name":"terminal","error_message":"boom"}`), "PostToolUseFailure", false},
		{"a PostToolUse entry skips failures", Claude, "PostToolUse", call("post_tool_call", `{"status":"error"}`), "", false},
		{"a PostToolUseFailure entry takes failures", Claude, "PostToolUseFailure", call("post_tool_call", `{"status":"blocked"}`), "PostToolUseFailure", false},
		{"an approval request is PermissionRequest by default", Claude, "", call("pre_approval_request", `{"command":"rm -rf /"}`), "PermissionRequest", false},
		{"a Notification entry gets Notification", Claude, "Notification", call("pre_approval_request", `{"command":"rm -rf /"}`), "Notification", false},
		{"a dialect_event of another event is a problem", Claude, "Stop", call("pre_tool_call", `{}`), "", true},
		{"an unknown dialect_event is a problem", Claude, "PreToolUze", call("pre_tool_call", `{}`), "", true},
		{"an event Claude lacks is a problem", Claude, "", call("transform_tool_result", `{}`), "", true},
		{"Cursor's terminal is beforeShellExecution", Cursor, "", call("pre_tool_call", `{"tool_name":"terminal"}`), "beforeShellExecution", false},
		{"Cursor's MCP tools are beforeMCPExecution", Cursor, "", call("pre_tool_call", `{"tool_name":"mcp_github_create_issue"}`), "beforeMCPExecution", false},
		{"Cursor's read_file is beforeReadFile", Cursor, "", call("pre_tool_call", `{"tool_name":"read_file"}`), "beforeReadFile", false},
		{"Cursor has no event before a web search", Cursor, "", call("pre_tool_call", `{"tool_name":"web_search"}`), "", false},
		{"a beforeShellExecution entry skips reads", Cursor, "beforeShellExecution", call("pre_tool_call", `{"tool_name":"read_file"}`), "", false},
		{"Cursor's edits are afterFileEdit", Cursor, "", call("post_tool_call", `{"tool_name":"patch"}`), "afterFileEdit", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev, problem := eventFor(tt.dialect, config.ShellHook{DialectEvent: tt.dialectEvent}, tt.call)
			got := ""
			if ev != nil {
				got = ev.Name
			}
			if got != tt.want {
				t.Errorf("event = %q, want %q", got, tt.want)
			}
			if (problem != "") != tt.problem {
				t.Errorf("problem = %q, want one: %v", problem, tt.problem)
			}
		})
	}
}

func TestEveryDialectTheConfigAcceptsHasAnImplementation(t *testing.T) {
	impl := Dialects()
	for _, name := range config.Dialects {
		if impl[name] == nil {
			t.Errorf("config accepts dialect %q, which compat does not implement", name)
		}
	}
	if len(impl) != len(config.Dialects) {
		t.Errorf("compat implements %d dialects, config accepts %d (%v)", len(impl), len(config.Dialects), config.Dialects)
	}
}
