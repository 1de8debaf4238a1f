package compat

import (
	"bytes"
	"strings"
	"testing"

	"github.com/noora-hooks/noora-hooks/internal/dispatch"
	"github.com/noora-hooks/noora-hooks/internal/runner"
	"github.com/noora-hooks/noora-hooks/internal/shellhook"

	"github.com/tidwall/gjson"

	"github.com/noora-hooks/noora-hooks/internal/config"
	"github.com/noora-hooks/noora-hooks/protocol"
)

// FuzzImport: whatever a settings.json or hooks.json holds, Import does not
// panic, and what it returns is a config that parses back to the same
// number of hooks without a single warning.
func FuzzImport(f *testing.F) {
	f.Add(false, []byte(`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"python3 x.py","timeout":10}]}]}}`))
	f.Add(false, []byte(`{"hooks":{"PostToolUse":[{"matcher":"Edit|Write","hooks":[{"type":"command","command":"npx prettier --write . && npm run lint"}]}],"PreCompact":[{"hooks":[{"type":"command","command":"x"}]}]}}`))
	f.Add(false, []byte(`{"hooks":{"SessionStart":[{"matcher":"startup","hooks":[{"type":"command","command":"cat \"$CLAUDE_PROJECT_DIR\"/NOTES.md","args":["a"]}]}],"Stop":[{"hooks":[{"type":"prompt","prompt":"?"}]}]}}`))
	f.Add(false, []byte(`{"hooks":{"Notification":[{"matcher":"(?<=x)","hooks":[{"command":"notify-send hi","timeout":1e9}]}]},"disableAllHooks":true}`))
	f.Add(true, []byte(`{"version":1,"hooks":{"beforeShellExecution":[{"command":"./hooks/a.sh","failClosed":true,"timeout":3}],"stop":[{"command":"./hooks/b.sh","loop_limit":2}]}}`))
	f.Add(true, []byte(`{"version":2,"hooks":{"afterFileEdit":[{"command":"cd .. && ./fmt.sh"}],"afterTabFileEdit":[{"command":"x"}],"preToolUse":[{"command":"y","matcher":"Shell"}]}}`))
	f.Add(true, []byte(`{"hooks":[]}`))
	f.Add(false, []byte(`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"http","url":"https://p.example/x","headers":{"Authorization":"Bearer $TOKEN ${OTHER}","X-Bad Name":"v","X-Multi":"a\nb"},"allowedEnvVars":["TOKEN","1x"],"timeout":5}]}]}}`))
	f.Add(false, []byte(`{"hooks":{"Stop":[{"hooks":[{"type":"http","url":"http://:80"},{"type":"http","url":"http://10.0.0.1/x","async":true}]}]}}`))
	f.Add(false, []byte(`{"hooks":{"PreToolUse":[{"hooks":[{"command":"a'b\"c\\d # e"}]}]}}`))
	f.Fuzz(func(t *testing.T, cursor bool, data []byte) {
		dialect := Claude
		if cursor {
			dialect = Cursor
		}
		im, err := Import(dialect, "/srv/p/.cursor/hooks.json", data)
		if err != nil {
			return
		}
		doc, added, _, err := config.AddEntries("config.yaml", nil, "imported", im.Entries)
		if err != nil {
			t.Fatalf("AddEntries: %v", err)
		}
		if added != len(im.Entries) {
			t.Fatalf("added %d of %d entries: the importer let a duplicate through", added, len(im.Entries))
		}
		cfg, err := config.Parse("config.yaml", doc)
		if err != nil {
			t.Fatalf("the imported config does not parse: %v\n%s", err, doc)
		}
		warnings := cfg.Warnings[:0:0]
		for _, w := range cfg.Warnings {
			// Plain http off this machine warns at every load, by design (SPEC §2).
			if !strings.Contains(w.Msg, "is plain http") {
				warnings = append(warnings, w)
			}
		}
		if len(warnings) > 0 || len(cfg.ShellHooks) != len(im.Entries) {
			t.Fatalf("the imported config reads back as %d hooks with warnings %v, want %d and none\n%s",
				len(cfg.ShellHooks), cfg.Warnings, len(im.Entries), doc)
		}
	})
}

// FuzzReadAnswer: a dialect reads any output of any hook on any event
// without panicking, and never returns an answer Noora would take as empty
// where it acts on it.
func FuzzReadAnswer(f *testing.F) {
	f.Add(false, uint8(0), 0, []byte(`{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"no"}}`), []byte(""))
	f.Add(false, uint8(0), 2, []byte(`{"continue":false}`), []byte("blocked\n"))
	f.Add(false, uint8(0), 0, []byte(`{"hookSpecificOutput":{"permissionDecision":"ask","updatedInput":{"file_path":"x"}}}`), []byte(""))
	f.Add(false, uint8(2), 0, []byte("plain context"), []byte(""))
	f.Add(false, uint8(3), 0, []byte(`{"decision":"block","reason":"   "}`), []byte(""))
	f.Add(false, uint8(3), 2, []byte(""), []byte("   "))
	f.Add(true, uint8(0), 0, []byte(`{"permission":"deny","agentMessage":""}`), []byte(""))
	f.Add(true, uint8(3), 0, []byte(`{"followup_message":"go on"}`), []byte(""))
	f.Add(true, uint8(2), 0, []byte(`{"continue":false,"user_message":"x"}`), []byte(""))
	events := []string{"pre_tool_call", "post_tool_call", "pre_llm_call", "pre_verify", "on_session_start", "subagent_stop", "pre_approval_request", "on_session_end"}
	kwargs := protocol.Object{
		{Key: "tool_name", Value: protocol.String("write_file")},
		{Key: "args", Value: []byte(`{"path":"a","content":"b"}`)},
	}
	f.Fuzz(func(t *testing.T, cursor bool, event uint8, code int, stdout, stderr []byte) {
		ev, _ := protocol.Lookup(events[int(event)%len(events)])
		call := dispatch.Call{Event: ev, Kwargs: kwargs, Cwd: "/p"}
		var d shellhook.Dialect = claudeDialect
		h := config.ShellHook{Event: ev.Name, Command: "x", Dialect: Claude}
		if cursor {
			d, h.Dialect = cursorDialect, Cursor
		}
		if ok, _ := d.Applies(h, call); !ok {
			return
		}
		out := runner.Outcome{End: runner.Exited, Code: code, Stdout: stdout, Stderr: stderr}
		r := d.Read(h, call, out)
		a := r.Answer
		switch a.Kind {
		case protocol.Block, protocol.Continue:
			if strings.TrimSpace(a.Message) == "" {
				t.Fatalf("%v with a blank message from stdout %q stderr %q", a.Kind, stdout, stderr)
			}
		case protocol.Context:
			if strings.TrimSpace(a.Text) == "" {
				t.Fatalf("blank context from %q", stdout)
			}
		case protocol.Modify:
			if a.Args == nil {
				t.Fatalf("modify without args from %q", stdout)
			}
		}
	})
}

// FuzzDecode: any payload is refused with an error or read, and the answer
// to it is nothing or one JSON object.
func FuzzDecode(f *testing.F) {
	f.Add(false, []byte(`{"session_id":"s","cwd":"/p","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`))
	f.Add(false, []byte(`{"hook_event_name":"PostToolUse","tool_name":"mcp__a__b","tool_input":{},"tool_response":"x"}`))
	f.Add(false, []byte(`{"hook_event_name":"Stop","stop_hook_active":"yes"}`))
	f.Add(true, []byte(`{"hook_event_name":"beforeMCPExecution","tool_name":"q","tool_input":"{\"a\":"}`))
	f.Add(true, []byte(`{"hook_event_name":"afterFileEdit","file_path":7,"edits":[{"old_string":1}]}`))
	f.Fuzz(func(t *testing.T, cursor bool, data []byte) {
		dialect := Claude
		if cursor {
			dialect = Cursor
		}
		in, err := Decode(dialect, data)
		if err != nil {
			return
		}
		for _, c := range []protocol.Combined{
			{Event: in.NooraEvent()},
			{Event: in.NooraEvent(), Answer: protocol.Object{{Key: "action", Value: protocol.String("modify")}, {Key: "args", Value: []byte(`{"path":"x"}`)}}},
			{Event: in.NooraEvent(), Answer: protocol.Object{{Key: "action", Value: protocol.String("block")}, {Key: "message", Value: protocol.String("m")}}},
		} {
			out := Encode(in, c)
			if s := bytes.TrimSpace(out.Stdout); len(s) > 0 && !gjson.ValidBytes(s) {
				t.Fatalf("answer %q is not JSON", s)
			}
		}
	})
}

// FuzzMissingScript: any command line, however it is quoted, is judged
// without panicking; a script reported missing is one that does not exist.
func FuzzMissingScript(f *testing.F) {
	for _, s := range []string{"python3 gone.py", `sh -c 'python3 "$ROOT"/x.py && y'`, "env A=1 B= uv run --script h/x.py", "node -e 1", "bash -c", "python3 'x", "env", "sh -c '$(", "deno run x.ts"} {
		f.Add(s)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, command string) {
		script, missing := missingScript(command, dir, []string{"ROOT=" + dir})
		if missing && script == "" {
			t.Fatalf("missingScript(%q) reports a missing script without naming it", command)
		}
	})
}
