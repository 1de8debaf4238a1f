package compat

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/noora-hooks/noora-hooks/internal/runner"

	"github.com/tidwall/gjson"

	"github.com/noora-hooks/noora-hooks/protocol"
)

func TestCodexEventsCoverTheCLI(t *testing.T) {
	names := []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest", "PostToolUse",
		"PreCompact", "PostCompact", "SubagentStart", "SubagentStop", "Stop", "Interrupt", "SessionEnd"}
	for _, name := range names {
		ev, ok := LookupEvent(Codex, name)
		switch {
		case !ok:
			t.Errorf("%s is missing", name)
		case ev.Noora == "" && ev.Missing == "":
			t.Errorf("%s has neither a Noora event nor a reason", name)
		case ev.Noora != "":
			if _, ok := protocol.Lookup(ev.Noora); !ok {
				t.Errorf("%s maps to %q, which Noora does not have", name, ev.Noora)
			}
		}
	}
}

// What Codex 0.169 refuses, as its binary says and the shared harness saw:
// each of these makes the hook fail, and the call go through.
func TestCodexRejects(t *testing.T) {
	tests := []struct {
		name, event, answer, want string
	}{
		{"a deny with a reason is taken", "PreToolUse",
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}`, ""},
		{"allow with a string command is taken", "PreToolUse",
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"ls"}}}`, ""},
		{"the legacy block with a reason is taken", "PreToolUse", `{"decision":"block","reason":"no"}`, ""},
		{"an unknown field fails", "PreToolUse", `{"action":"block"}`, `unknown field "action"`},
		{"Gemini's deny fails", "PreToolUse", `{"decision":"deny","reason":"x"}`, `unsupported decision "deny"`},
		{"ask fails", "PreToolUse", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask"}}`, "unsupported permissionDecision: ask"},
		{"allow alone fails", "PreToolUse", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}`, "unsupported permissionDecision: allow without updatedInput"},
		{"updatedInput without allow fails", "PreToolUse", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"ls"}}}`, "updatedInput without permissionDecision: allow"},
		{"updatedInput without a string command fails", "PreToolUse", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"file_path":"a"}}}`, "updatedInput without a string command"},
		{"continue: false before a tool fails", "PreToolUse", `{"continue":false,"stopReason":"halt"}`, "unsupported continue: false"},
		{"a deny without a reason fails", "PreToolUse", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"}}`, "permissionDecision: deny without a non-empty permissionDecisionReason"},
		{"the wrong hookEventName fails", "PostToolUse", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"x"}}`, "hookSpecificOutput.hookEventName must be PostToolUse"},
		{"post-tool context is taken", "PostToolUse", `{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"x"}}`, ""},
		{"continue: false after a tool is taken", "PostToolUse", `{"continue":false,"stopReason":"x"}`, ""},
		{"a Stop block needs a reason", "Stop", `{"decision":"block"}`, "decision: block without a non-empty reason"},
		{"a Stop block with a reason is taken", "Stop", `{"decision":"block","reason":"go on"}`, ""},
		{"Stop has no hookSpecificOutput", "Stop", `{"hookSpecificOutput":{"hookEventName":"Stop"}}`, `unknown field "hookSpecificOutput"`},
		{"a wrong type fails", "UserPromptSubmit", `{"continue":"no"}`, "continue must be a boolean"},
		{"a permission decision may allow or deny", "PermissionRequest",
			`{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"no"}}}`, ""},
		{"a permission decision may not rewrite", "PermissionRequest",
			`{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedInput":{}}}}`, "unsupported updatedInput"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := CodexRejects(tt.event, gjson.Parse(tt.answer)); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// Whatever Noora answers, the bridge prints nothing or something Codex
// takes: a rejected answer would let the call through.
func TestEncodeCodexNeverPrintsWhatCodexRejects(t *testing.T) {
	answers := []string{
		``,
		`{"action":"block","message":"no"}`,
		`{"action":"block","message":""}`,
		`{"action":"approve","message":"look"}`,
		`{"action":"approve","args":{"command":"ls -a"}}`,
		`{"action":"modify","args":{"command":"echo safe"}}`,
		`{"action":"modify","args":{"command":"ls","workdir":"/elsewhere"}}`,
		`{"action":"modify","args":{"path":"b"}}`,
		`{"context":"ctx"}`,
		`{"action":"continue","message":"go on"}`,
		`{"action":"continue","message":""}`,
		`{"stop":true,"stop_reason":"halt"}`,
		`{"stop":true,"stop_reason":""}`,
		`{"action":"block","message":"no","stop":true,"stop_reason":"halt"}`,
		`{"context":"ctx","stop":true,"stop_reason":"halt"}`,
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "codex", "*.json"))
	if len(files) == 0 {
		t.Fatal("no recorded payloads")
	}
	extra := []string{`{"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"a","content":"x"}}`,
		`{"hook_event_name":"SubagentStop","agent_type":"x"}`}
	payloads := append([]string(nil), extra...)
	for _, f := range files {
		b, _ := os.ReadFile(f)
		payloads = append(payloads, string(b))
	}
	for _, p := range payloads {
		in, err := Decode(Codex, []byte(p))
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range answers {
			c := protocol.Combined{Event: in.NooraEvent()}
			c.Answer, _ = protocol.ParseObject([]byte(a))
			out := Encode(in, c)
			s := strings.TrimSpace(string(out.Stdout))
			if s == "" {
				continue
			}
			if why := CodexRejects(in.Name, gjson.Parse(s)); why != "" {
				t.Errorf("%s, answer %s: printed %s, which Codex rejects: %s", in.Name, a, s, why)
			}
		}
	}
}

func TestEncodeCodex(t *testing.T) {
	bash := `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf /"},"tool_use_id":"c1"}`
	deny := func(reason string) string {
		return `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"` + reason + `"}}`
	}
	tests := []struct {
		name, payload, answer, want string
		warns                       int
	}{
		{"a block is a deny", bash, `{"action":"block","message":"no"}`, deny("no"), 0},
		{"a rewrite of the command is allow with updatedInput", bash, `{"action":"modify","args":{"command":"echo safe"}}`,
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"echo safe"}}}`, 0},
		{"a rewrite Codex cannot apply is refused", bash, `{"action":"modify","args":{"command":"ls","workdir":"/x"}}`,
			deny(rewroteMessage + " Codex CLI cannot apply it, so the call is refused."), 1},
		{"an approval Codex cannot ask for is refused", bash, `{"action":"approve","message":"look"}`,
			deny("look (Codex CLI cannot ask for approval from a hook, so the call is refused.)"), 1},
		{"a stop before a tool is a deny, with a warning", bash, `{"stop":true,"stop_reason":"halt"}`, deny("halt"), 1},
		{"no answer is no output, never allow", bash, ``, ``, 0},
		{"prompt context is additionalContext", `{"hook_event_name":"UserPromptSubmit","prompt":"hi"}`, `{"context":"c"}`,
			`{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"c"}}`, 0},
		{"a stop at the prompt is continue: false", `{"hook_event_name":"UserPromptSubmit","prompt":"hi"}`, `{"stop":true,"stop_reason":"quota"}`,
			`{"continue":false,"stopReason":"quota"}`, 0},
		{"post-tool context is additionalContext", `{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_response":"a\n"}`,
			`{"context":"c"}`, `{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"c"}}`, 0},
		{"continue at the verify gate blocks the Stop", `{"hook_event_name":"Stop","stop_hook_active":false}`,
			`{"action":"continue","message":"run the tests"}`, `{"decision":"block","reason":"run the tests"}`, 0},
		{"an event Noora lacks answers nothing, with a warning", `{"hook_event_name":"PreCompact","trigger":"auto"}`, ``, ``, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := Decode(Codex, []byte(tt.payload))
			if err != nil {
				t.Fatal(err)
			}
			c := protocol.Combined{Event: in.NooraEvent()}
			c.Answer, _ = protocol.ParseObject([]byte(tt.answer))
			out := Encode(in, c)
			if got := strings.TrimSpace(string(out.Stdout)); got != tt.want {
				t.Errorf("stdout\n got %s\nwant %s", got, tt.want)
			}
			if len(out.Warnings) != tt.warns {
				t.Errorf("warnings %q, want %d", out.Warnings, tt.warns)
			}
		})
	}
}

func TestDecodeCodexRecordedPayloads(t *testing.T) {
	checkRecorded(t, Codex, "codex", map[string]string{
		"SessionStart.json":         `on_session_start source=startup model=gpt-5.5`,
		"SessionStart_compact.json": `on_session_start source=compact`,
		"UserPromptSubmit.json":     `pre_llm_call user_message=run the command turn_id=01a22c4f-f4ab-7f70-86ca-f614c3639afc`,
		"PreToolUse.json":           `pre_tool_call tool_name=terminal args.command=echo hello-from-fake-model tool_call_id=call_fake000001`,
		"PostToolUse.json":          `post_tool_call tool_name=terminal status=success`,
		"PermissionRequest.json":    `pre_approval_request tool_name=terminal command=touch x description=need to write`,
		"Stop.json":                 `pre_verify final_response=done attempt=0`,
		"SessionEnd.json":           `on_session_end reason=other`,
		"PreCompact.json":           ``,
		"PostCompact.json":          ``,
		"Interrupt.json":            ``,
	})
}

func TestCodexPayload(t *testing.T) {
	tests := []struct {
		name, event, kwargs, want string
	}{
		{"a terminal call is Bash with the command only, turn and model kept", "pre_tool_call",
			`{"tool_name":"terminal","args":{"command":"ls","workdir":"/p","timeout":5},"session_id":"s1","turn_id":"t1","model":"gpt-5.5","tool_call_id":"c1"}`,
			`{"session_id":"s1","turn_id":"t1","cwd":"/home/u/proj","permission_mode":"default","hook_event_name":"PreToolUse","model":"gpt-5.5","tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"c1"}`},
		{"a tool's response is its output as a string", "post_tool_call",
			`{"tool_name":"terminal","args":{"command":"ls"},"result":"{\"a\":1}","status":"success","session_id":"s1"}`,
			`{"session_id":"s1","cwd":"/home/u/proj","permission_mode":"default","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_response":"{\"a\":1}"}`},
		{"SessionEnd has no permission mode", "on_session_end", `{"session_id":"s1"}`,
			`{"session_id":"s1","cwd":"/home/u/proj","hook_event_name":"SessionEnd","reason":"other"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			call := testCall(t, tt.event, tt.kwargs)
			h := dialectHook(Codex, tt.event, "")
			got := strings.TrimSpace(string(codexDialect.Stdin(h, call)))
			if got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			if env := codexDialect.Env(h, call); len(env) != 0 {
				t.Errorf("env %q: Codex sets none", env)
			}
		})
	}
}

func TestCodexMatchersAreRegularExpressions(t *testing.T) {
	for _, tt := range []struct {
		matcher string
		want    bool
	}{{"Bash", true}, {"^Ba", true}, {"*", true}, {"terminal", false}, {"Write", false}} {
		call := testCall(t, "pre_tool_call", `{"tool_name":"terminal"}`)
		if ok, _ := codexDialect.Applies(dialectHook(Codex, "pre_tool_call", tt.matcher), call); ok != tt.want {
			t.Errorf("matcher %q on Bash: %v, want %v", tt.matcher, ok, tt.want)
		}
	}
}

func TestCodexRead(t *testing.T) {
	tests := []struct {
		name, event, kwargs string
		code                int
		stdout, stderr      string
		kind                protocol.Kind
		message, args, stop string
		failed              bool
	}{
		{"a deny blocks", "pre_tool_call", `{"tool_name":"terminal"}`, 0,
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}`, "",
			protocol.Block, "no", "", "", false},
		{"allow with updatedInput rewrites, granting nothing", "pre_tool_call", `{"tool_name":"terminal","args":{"command":"ls"}}`, 0,
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"ls -a"}}}`, "",
			protocol.Modify, "", `{"command":"ls -a"}`, "", false},
		{"an answer Codex rejects fails and counts for nothing", "pre_tool_call", `{}`, 0,
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask"}}`, "",
			protocol.None, "", "", "", true},
		{"exit 2 blocks with stderr", "pre_tool_call", `{}`, 2, "", "not here", protocol.Block, "not here", "", "", false},
		{"exit 2 with an empty stderr blocks nothing", "pre_tool_call", `{}`, 2, `{"decision":"block"}`, "", protocol.None, "", "", "", true},
		{"exit 2 at Stop keeps the agent going", "pre_verify", `{}`, 2, "", "lint first", protocol.Continue, "lint first", "", "", false},
		{"plain stdout at the prompt is context", "pre_llm_call", `{}`, 0, "branch main", "", protocol.Context, "", "", "", false},
		{"plain stdout after a tool is ignored", "post_tool_call", `{}`, 0, "whatever", "", protocol.None, "", "", "", false},
		{"post-tool additionalContext is context", "post_tool_call", `{}`, 0,
			`{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"c"}}`, "", protocol.Context, "", "", "", false},
		{"continue: false at the prompt stops", "pre_llm_call", `{}`, 0, `{"continue":false,"stopReason":"quota"}`, "",
			protocol.None, "", "", "quota", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := codexDialect.Read(dialectHook(Codex, tt.event, ""), testCall(t, tt.event, tt.kwargs),
				runner.Outcome{Code: tt.code, Stdout: []byte(tt.stdout), Stderr: []byte(tt.stderr)})
			a := r.Answer
			if a.Kind != tt.kind || a.Message != tt.message && tt.message != "" || r.Failed != tt.failed {
				t.Errorf("got %+v failed %v (%q), want %v %q failed %v", a, r.Failed, r.Warnings, tt.kind, tt.message, tt.failed)
			}
			if tt.args != "" {
				if got, _ := a.Args.MarshalJSON(); string(got) != tt.args {
					t.Errorf("args %s, want %s", got, tt.args)
				}
			}
			if a.StopReason != tt.stop || a.Stop != (tt.stop != "") {
				t.Errorf("stop %v %q, want %q", a.Stop, a.StopReason, tt.stop)
			}
		})
	}
}
