package shellhook

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/noora-hooks/noora-hooks/internal/dispatch"
	"github.com/noora-hooks/noora-hooks/internal/runner"

	"github.com/noora-hooks/noora-hooks/internal/config"
	"github.com/noora-hooks/noora-hooks/protocol"
)

// fakeDialect records what the runner asks of it and answers as told.
type fakeDialect struct {
	applies bool
	problem string
	reading Reading
	read    *runner.Outcome
}

func (d *fakeDialect) Applies(config.ShellHook, dispatch.Call) (bool, string) {
	return d.applies, d.problem
}
func (d *fakeDialect) Stdin(config.ShellHook, dispatch.Call) []byte {
	return []byte("dialect payload\n")
}
func (d *fakeDialect) Env(config.ShellHook, dispatch.Call) []string {
	return []string{"FAKE_PROJECT_DIR=/proj", "NOORA_HOME=/overridden"}
}
func (d *fakeDialect) Read(_ config.ShellHook, _ dispatch.Call, out runner.Outcome) Reading {
	d.read = &out
	return d.reading
}

func preToolCall(t *testing.T) dispatch.Call {
	ev, _ := protocol.Lookup(protocol.PreToolCall)
	return dispatch.Call{Event: ev, Kwargs: protocol.Kwargs{{Key: "tool_name", Value: protocol.String("terminal")}},
		Cwd: t.TempDir(), Home: "/home/u/.noora", Env: []string{"PATH=" + os.Getenv("PATH"), "FAKE_PROJECT_DIR=/old"}}
}

func TestShellSourceAsksTheDialect(t *testing.T) {
	entry := config.ShellHook{Event: protocol.PreToolCall, Command: "true", Dialect: "fake", Timeout: 5 * time.Second,
		Matcher: config.NewMatcher("never-this-tool")}
	tests := []struct {
		name     string
		dialects map[string]Dialect
		want     string // "run", "skip" (with a warning), "none"
	}{
		{"a dialect that applies runs the hook, whatever Noora's matcher says", map[string]Dialect{"fake": &fakeDialect{applies: true}}, "run"},
		{"a dialect that does not apply leaves it out", map[string]Dialect{"fake": &fakeDialect{}}, "none"},
		{"a dialect with a problem skips it with a warning", map[string]Dialect{"fake": &fakeDialect{problem: "no such event"}}, "skip"},
		{"a missing dialect skips it with a warning", nil, "skip"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := ShellSource{Entries: []config.ShellHook{entry}, Dialects: tt.dialects}
			hooks := src.Hooks(context.Background(), preToolCall(t))
			got := "none"
			if len(hooks) == 1 {
				switch h := hooks[0].(type) {
				case *ShellHook:
					got = "run"
					if h.Dialect == nil {
						t.Errorf("the hook lost its dialect")
					}
				case Skipped:
					got = "skip"
					if h.Why == "" {
						t.Errorf("skipped without a reason")
					}
				}
			}
			if got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestShellHookSpeaksItsDialect(t *testing.T) {
	call := preToolCall(t)
	saved := filepath.Join(call.Cwd, "saved")
	d := &fakeDialect{applies: true, reading: Reading{
		Answer:   protocol.Answer{Kind: protocol.Block, Message: "from the dialect"},
		Warnings: []string{"a note"},
	}}
	h := &ShellHook{Dialect: d, Config: config.ShellHook{Event: protocol.PreToolCall, Timeout: 10 * time.Second,
		Command: `sh -c 'cat > saved; echo "$FAKE_PROJECT_DIR $NOORA_HOME"; exit 3'`}}
	res := h.Run(context.Background(), call)

	stdin, err := os.ReadFile(saved)
	if err != nil || string(stdin) != "dialect payload\n" {
		t.Errorf("the hook read %q (%v), want the dialect's payload", stdin, err)
	}
	if d.read == nil || strings.TrimSpace(string(d.read.Stdout)) != "/proj /overridden" || d.read.Code != 3 {
		t.Fatalf("the dialect read %+v; want the dialect's environment replacing the caller's and exit 3", d.read)
	}
	if res.Answer.Message != "from the dialect" || res.Status != dispatch.StatusOK {
		t.Errorf("result %+v, want the dialect's answer", res)
	}
	if len(res.Warnings) != 1 || !strings.HasSuffix(res.Warnings[0].String(), ": a note") || !strings.HasPrefix(res.Warnings[0].String(), "pre_tool_call hook ") {
		t.Errorf("warnings %q, want the dialect's, named after the hook", res.Warnings)
	}
}

func TestFailClosedAppliesToDialects(t *testing.T) {
	d := &fakeDialect{applies: true, reading: Reading{Unusable: true, Failed: true}}
	h := &ShellHook{Dialect: d, Config: config.ShellHook{Event: protocol.PreToolCall, Command: "true", Timeout: 10 * time.Second, FailClosed: true}}
	res := h.Run(context.Background(), preToolCall(t))
	if res.Answer.Kind != protocol.Block || !strings.Contains(res.Answer.Message, "failed closed: unparseable stdout") || res.Status != dispatch.StatusError {
		t.Errorf("result %+v, want a fail-closed block", res)
	}
}

func TestReadNoora(t *testing.T) {
	tests := []struct {
		name           string
		event          string
		code           int
		stdout, stderr string
		kind           protocol.Kind
		message        string
		failed         bool
		unusable       bool
	}{
		{"exit 2 on pre_tool_call blocks with stderr", protocol.PreToolCall, 2, "", "nope\n", protocol.Block, "nope", false, false},
		{"a block on stdout wins over stderr", protocol.PreToolCall, 2, `{"action":"block","message":"json"}`, "stderr", protocol.Block, "json", false, false},
		{"a failing hook's block still blocks", protocol.PreToolCall, 1, `{"action":"block","message":"still"}`, "", protocol.Block, "still", true, false},
		{"invalid JSON is unusable", protocol.PreToolCall, 0, "not json", "", protocol.None, "", false, true},
		{"a JSON string is not an object", protocol.PreToolCall, 0, `"x"`, "", protocol.None, "", false, true},
		{"exit 2 elsewhere is a failure", protocol.PreLLMCall, 2, "", "x", protocol.None, "", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ReadNoora(tt.event, runner.Outcome{End: runner.Exited, Code: tt.code, Stdout: []byte(tt.stdout), Stderr: []byte(tt.stderr)})
			if r.Answer.Kind != tt.kind || r.Answer.Message != tt.message || r.Failed != tt.failed || r.Unusable != tt.unusable {
				t.Errorf("got %+v", r)
			}
		})
	}
}
