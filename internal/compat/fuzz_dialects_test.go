package compat

import (
	"bytes"
	"testing"

	"github.com/noora-hooks/noora-hooks/internal/dispatch"
	"github.com/noora-hooks/noora-hooks/internal/runner"

	"github.com/tidwall/gjson"

	"github.com/noora-hooks/noora-hooks/protocol"
)

// FuzzCodexBridge: whatever Codex CLI sends and whatever Noora answers, the
// bridge prints nothing or an answer Codex takes (a rejected one would let
// the call through).
func FuzzCodexBridge(f *testing.F) {
	f.Add([]byte(`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`), []byte(`{"action":"modify","args":{"command":"ls -a"}}`))
	f.Add([]byte(`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`), []byte(`{"action":"block","message":"","stop":true}`))
	f.Add([]byte(`{"hook_event_name":"Stop","stop_hook_active":true}`), []byte(`{"action":"continue","message":" "}`))
	f.Add([]byte(`{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{},"tool_response":7}`), []byte(`{"context":"c","stop":true,"stop_reason":""}`))
	f.Add([]byte(`{"hook_event_name":"UserPromptSubmit","prompt":1}`), []byte(`{"context":5}`))
	f.Fuzz(func(t *testing.T, payload, answer []byte) {
		in, err := Decode(Codex, payload)
		if err != nil {
			return
		}
		c := protocol.Combined{Event: in.NooraEvent()}
		if o, err := protocol.ParseObject(answer); err == nil {
			c.Answer = o
		}
		out := Encode(in, c)
		s := bytes.TrimSpace(out.Stdout)
		if len(s) == 0 {
			return
		}
		if why := CodexRejects(in.Name, gjson.ParseBytes(s)); why != "" {
			t.Fatalf("printed %s, which Codex rejects: %s", s, why)
		}
	})
}

// FuzzGeminiRead: any output of a Gemini hook is read without a panic, and
// a block always carries a message.
func FuzzGeminiRead(f *testing.F) {
	f.Add(0, []byte(`{"decision":"deny"}`), []byte(""))
	f.Add(2, []byte(""), []byte("no"))
	f.Add(3, []byte(`"{\"continue\":false}"`), []byte(""))
	f.Add(0, []byte(`{"hookSpecificOutput":{"tool_input":[1]}}`), []byte(""))
	f.Fuzz(func(t *testing.T, code int, stdout, stderr []byte) {
		call := dispatch.Call{Event: protocol.Event{Name: protocol.PreToolCall}, Kwargs: protocol.Kwargs{{Key: "tool_name", Value: protocol.String("terminal")}}}
		r := geminiDialect.Read(dialectHook(Gemini, protocol.PreToolCall, ""), call, runner.Outcome{Code: code, Stdout: stdout, Stderr: stderr})
		if r.Answer.Kind == protocol.Block && r.Answer.Message == "" {
			t.Fatalf("a block without a message from %q %q", stdout, stderr)
		}
	})
}

// FuzzImportAgents: any Gemini settings.json or Codex config.toml is
// refused with a syntax error or imported, and every entry it gives has a
// command and a valid timeout.
func FuzzImportAgents(f *testing.F) {
	f.Add(false, []byte(`{"hooks":{"BeforeTool":[{"matcher":"run_shell_command","hooks":[{"type":"command","command":"x","timeout":1500,"env":{"A":"b"}}]}]}}`))
	f.Add(false, []byte(`{"hooks":{"enabled":true,"AfterModel":[{"hooks":[{"command":"y"}]}]},"hooksConfig":{"disabled":[1]}}`))
	f.Add(true, []byte("[[hooks.PreToolUse]]\nmatcher = \"Bash\"\n[[hooks.PreToolUse.hooks]]\ncommand = \"z\"\ntimeout = 1e9\n"))
	f.Add(true, []byte("hooks = 3\n"))
	f.Fuzz(func(t *testing.T, codex bool, data []byte) {
		dialect, file := Gemini, "settings.json"
		if codex {
			dialect, file = Codex, "config.toml"
		}
		im, err := Import(dialect, file, data)
		if err != nil {
			return
		}
		for _, e := range im.Entries {
			if e.Command == "" || e.Timeout < 0 || e.Timeout > 300 || e.Dialect != dialect {
				t.Fatalf("bad entry %+v", e)
			}
		}
	})
}

// FuzzToolResults: whatever a Noora tool returns and whatever Claude Code
// sends as tool_response, the converters do not panic, and what they give
// is JSON: a value for Claude, a JSON string for Noora.
func FuzzToolResults(f *testing.F) {
	f.Add(uint8(2), []byte(`{"path":"a","content":"x"}`), []byte(`{"bytes_written":1,"dirs_created":true,"resolved_path":"/a"}`))
	f.Add(uint8(4), []byte(`{"path":"a","old_string":"b","new_string":"c"}`), []byte(`{"success":true,"diff":"--- a\n+++ a\n@@ -1 +1 @@\n-b\n+c\n","files_modified":["/a"]}`))
	f.Add(uint8(5), []byte(`{"pattern":"*","target":"files"}`), []byte(`{"total_count":1,"files":["a"]}`))
	f.Add(uint8(6), []byte(`{"pattern":"x","output_mode":"count"}`), []byte(`{"total_count":2,"counts":{"a":2}}`))
	f.Add(uint8(6), []byte(`{"pattern":"x"}`), []byte(`{"total_count":5,"matches_text":"a\n  1: x\n  x: y"}`))
	f.Add(uint8(7), []byte(`{"query":"q"}`), []byte(`{"query":"q","results":[{"tool_use_id":"t","content":[{"title":"T","url":"u"}]},"text"]}`))
	f.Add(uint8(8), []byte(`{"urls":["u"]}`), []byte(`{"results":[{"url":"u","content":"c","error":null}]}`))
	f.Add(uint8(4), []byte(`{}`), []byte(`{"filePath":"a","structuredPatch":[{"oldStart":1,"oldLines":"x","lines":[1]}]}`))
	f.Fuzz(func(t *testing.T, tool uint8, args, result []byte) {
		rule := &claudeTools[int(tool)%len(claudeTools)]
		a, err := protocol.ParseObject(args)
		if err != nil {
			a = nil
		}
		if !gjson.ValidBytes(result) {
			result = protocol.String(string(result))
		}
		if got := claudeResponse(rule.Noora, a, protocol.String(string(result))); !gjson.ValidBytes(got) {
			t.Fatalf("claudeResponse(%s, %s, %q) = %s: not JSON", rule.Noora, args, result, got)
		}
		if got := claudeResponse(rule.Noora, a, result); !gjson.ValidBytes(got) {
			t.Fatalf("claudeResponse(%s, %s, %s) = %s: not JSON", rule.Noora, args, result, got)
		}
		if got := gjson.ParseBytes(nooraResult(rule.Claude, result)); got.Type != gjson.String || !gjson.Valid(got.Raw) {
			t.Fatalf("nooraResult(%s, %s) = %s: not a JSON string", rule.Claude, result, got.Raw)
		}
	})
}
