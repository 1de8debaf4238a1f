package shellhook

import (
	"testing"
	"time"

	"github.com/noora-hooks/noora-hooks/internal/dispatch"
	"github.com/noora-hooks/noora-hooks/internal/runner"

	"github.com/noora-hooks/noora-hooks/internal/config"
	"github.com/noora-hooks/noora-hooks/protocol"
)

// A hook that ran and exited, read as the agent reads it
// (agent/shell_hooks.py _evaluate_result); each case is the agent's answer.
func TestExitedHooksReadAsTheAgentReadsThem(t *testing.T) {
	tests := []struct {
		name           string
		event          string
		failClosed     bool
		code           int
		stdout, stderr string
		kind           protocol.Kind
		message        string
	}{
		// Exit 2 decides before fail_closed looks at stdout.
		{"exit 2 with a list on stdout blocks with stderr under fail_closed", protocol.PreToolCall, true, 2, "[1,2]", "policy says no\n", protocol.Block, "policy says no"},
		{"exit 2 with garbage on stdout blocks with stderr under fail_closed", protocol.PreToolCall, true, 2, "Traceback", "", protocol.Block, protocol.DefaultBlockMessage},
		{"exit 2 with a block on stdout keeps its message under fail_closed", protocol.PreToolCall, true, 2, `{"action":"block","message":"m"}`, "e", protocol.Block, "m"},
		{"exit 0 with a list on stdout still fails closed", protocol.PreToolCall, true, 0, "[1,2]", "", protocol.Block, "hook h failed closed: unparseable stdout (expected a JSON object)"},
		// str.strip() removes U+001C..U+001F, from stdout and stderr alike.
		{"stdout padded with U+001F is read", protocol.PreToolCall, false, 0, "\x1f{\"action\":\"block\"}\x1e\n", "", protocol.Block, protocol.DefaultBlockMessage},
		{"stderr padded with U+001C is stripped for the exit-2 message", protocol.PreToolCall, false, 2, "", "\x1cno\x1c\n", protocol.Block, "no"},
		// _parse_response: only an object is an answer from a shell hook.
		{"a bare string is no context from a shell hook", protocol.PreLLMCall, false, 0, `"some text"`, "", protocol.None, ""},
		{"an object's context is context", protocol.PreLLMCall, false, 0, `{"context":"c"}`, "", protocol.Context, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &ShellHook{Config: config.ShellHook{Event: tt.event, Command: "h", Timeout: time.Minute, FailClosed: tt.failClosed}}
			res := h.read(dispatch.Result{}, dispatch.Call{}, runner.Outcome{End: runner.Exited, Code: tt.code, Stdout: []byte(tt.stdout), Stderr: []byte(tt.stderr)})
			if res.Answer.Kind != tt.kind || res.Answer.Message != tt.message {
				t.Errorf("got %s %q, want %s %q", res.Answer.Kind, res.Answer.Message, tt.kind, tt.message)
			}
		})
	}
}
