package config

import (
	"strings"
	"testing"
)

func TestDialectEntries(t *testing.T) {
	tests := []struct {
		name         string
		yaml         string
		hooks        int
		dialect      string
		dialectEvent string
		matcher      string
		warning      string // a part of the one warning, "" for none
	}{
		{"a claude entry keeps its dialect",
			"hooks:\n  pre_tool_call:\n    - command: x\n      dialect: claude\n", 1, "claude", "", "", ""},
		{"a cursor entry names the event it came from",
			"hooks:\n  pre_tool_call:\n    - command: x\n      dialect: cursor\n      dialect_event: beforeShellExecution\n", 1, "cursor", "beforeShellExecution", "", ""},
		{"an unknown dialect is skipped",
			"hooks:\n  pre_tool_call:\n    - command: x\n      dialect: aider\n", 0, "", "", "", `unknown dialect "aider" (valid: claude, cursor, gemini, codex); skipped`},
		{"a dialect that is not a string is skipped",
			"hooks:\n  pre_tool_call:\n    - command: x\n      dialect: [claude]\n", 0, "", "", "", "dialect must be a string"},
		{"dialect_event without a dialect is ignored",
			"hooks:\n  pre_tool_call:\n    - command: x\n      dialect_event: PreToolUse\n", 1, "", "", "", "dialect_event applies only with dialect"},
		{"a dialect keeps a matcher on an event Noora matches nothing on",
			"hooks:\n  on_session_start:\n    - command: x\n      matcher: startup\n      dialect: claude\n", 1, "claude", "", "startup", ""},
		{"without a dialect that matcher is still dropped",
			"hooks:\n  on_session_start:\n    - command: x\n      matcher: startup\n", 1, "", "", "", "matcher applies only to pre_tool_call and post_tool_call"},
		{"the same command in two dialects is two hooks",
			"hooks:\n  pre_tool_call:\n    - command: x\n    - command: x\n      dialect: claude\n", 2, "claude", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse("config.yaml", []byte(tt.yaml))
			if err != nil {
				t.Fatal(err)
			}
			if len(c.ShellHooks) != tt.hooks {
				t.Fatalf("%d hooks, want %d (warnings %v)", len(c.ShellHooks), tt.hooks, c.Warnings)
			}
			if tt.warning == "" && len(c.Warnings) > 0 || tt.warning != "" && (len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0].String(), tt.warning)) {
				t.Errorf("warnings %v, want %q", c.Warnings, tt.warning)
			}
			if tt.hooks == 0 {
				return
			}
			h := c.ShellHooks[len(c.ShellHooks)-1]
			if h.Dialect != tt.dialect || h.DialectEvent != tt.dialectEvent {
				t.Errorf("dialect %q %q, want %q %q", h.Dialect, h.DialectEvent, tt.dialect, tt.dialectEvent)
			}
			got := ""
			if h.Matcher != nil {
				got = h.Matcher.Source
			}
			if got != tt.matcher {
				t.Errorf("matcher %q, want %q", got, tt.matcher)
			}
		})
	}
}

func TestAddEntries(t *testing.T) {
	entries := []Entry{
		{Event: "pre_tool_call", Matcher: "Bash", Command: "python3 guard.py", Timeout: 10, Dialect: "claude"},
		{Event: "post_tool_call", Matcher: "Edit|Write", Command: "sh -c 'fmt && lint'", Dialect: "claude", DialectEvent: "PostToolUse", Comment: "needs a shell (&&): wrapped in sh -c"},
		{Event: "pre_tool_call", Command: "true", FailClosed: true, Dialect: "cursor", DialectEvent: "beforeShellExecution"},
	}
	t.Run("a new file gets the header and every entry", func(t *testing.T) {
		out, added, present, err := AddEntries("c.yaml", nil, "Imported.", entries)
		if err != nil {
			t.Fatal(err)
		}
		want := `# Imported.

hooks:
  pre_tool_call:
    - matcher: Bash
      command: python3 guard.py
      timeout: 10
      dialect: claude
    - command: "true"
      fail_closed: true
      dialect: cursor
      dialect_event: beforeShellExecution
  post_tool_call:
    # needs a shell (&&): wrapped in sh -c
    - matcher: Edit|Write
      command: sh -c 'fmt && lint'
      dialect: claude
      dialect_event: PostToolUse
`
		if string(out) != want || added != 3 || present != 0 {
			t.Errorf("added %d present %d\n%s\nwant\n%s", added, present, out, want)
		}
	})
	t.Run("an existing file keeps its settings and comments", func(t *testing.T) {
		doc := `# my noora config
hooks_auto_accept: false  # keep asking
hooks:
  pre_tool_call:
    # the old guard
    - command: ~/.noora/agent-hooks/guard.sh
      matcher: terminal
`
		out, added, present, err := AddEntries("c.yaml", []byte(doc), "Imported.", entries[:1])
		if err != nil {
			t.Fatal(err)
		}
		for _, keep := range []string{"# my noora config", "hooks_auto_accept: false # keep asking", "# the old guard", "command: ~/.noora/agent-hooks/guard.sh", "command: python3 guard.py"} {
			if !strings.Contains(string(out), keep) {
				t.Errorf("%q lost:\n%s", keep, out)
			}
		}
		if strings.Contains(string(out), "Imported.") {
			t.Errorf("the header is for new files only:\n%s", out)
		}
		if added != 1 || present != 0 {
			t.Errorf("added %d present %d, want 1 0", added, present)
		}
		again, added, present, err := AddEntries("c.yaml", out, "Imported.", entries[:1])
		if err != nil || added != 0 || present != 1 || string(again) != string(out) {
			t.Errorf("a second import added %d, present %d, err %v; the file changed: %v", added, present, err, string(again) != string(out))
		}
		c, err := Parse("c.yaml", out)
		if err != nil || len(c.ShellHooks) != 2 || len(c.Warnings) != 0 {
			t.Errorf("merged config: %v, %d hooks, warnings %v", err, len(c.ShellHooks), c.Warnings)
		}
	})
	t.Run("an empty hooks list is filled", func(t *testing.T) {
		out, added, _, err := AddEntries("c.yaml", []byte("hooks:\n  pre_tool_call:\n"), "", entries[:1])
		if err != nil || added != 1 || !strings.Contains(string(out), "python3 guard.py") {
			t.Errorf("got %v %d\n%s", err, added, out)
		}
	})
	t.Run("a config that is not a mapping is not touched", func(t *testing.T) {
		for _, doc := range []string{"- a\n- b\n", "hooks: [1]\n", "hooks:\n  pre_tool_call: nope\n"} {
			if _, _, _, err := AddEntries("c.yaml", []byte(doc), "", entries[:1]); err == nil {
				t.Errorf("%q: no error", doc)
			}
		}
	})
	t.Run("a YAML syntax error is reported with its place", func(t *testing.T) {
		_, _, _, err := AddEntries("c.yaml", []byte("hooks:\n  pre_tool_call: [\n"), "", entries[:1])
		if _, ok := err.(*SyntaxError); !ok {
			t.Errorf("err = %v, want a *SyntaxError", err)
		}
	})
}
