package compat

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/google/shlex"

	"github.com/noora-hooks/noora-hooks/internal/config"
)

func TestShellNeeds(t *testing.T) {
	tests := []struct {
		name, command string
		want          []string
	}{
		{"a program and its arguments", "python3 .claude/hooks/check.py --strict", nil},
		{"quoted arguments", `notify-send 'Claude Code' "Needs your approval"`, nil},
		{"a tilde program is expanded by noora-hooks", "~/.claude/hooks/x.sh", nil},
		{"an escaped space", `./my\ hook.sh`, nil},
		{"commands joined by &&", "npx prettier --write . && npm run lint", []string{"&&"}},
		{"a pipe", "cat | tee log", []string{"a pipe"}},
		{"a redirect", "echo done >> log.txt", []string{"a redirect"}},
		{"a variable", `"$CLAUDE_PROJECT_DIR"/.claude/hooks/x.sh`, []string{"$ expansion"}},
		{"a variable in double quotes", `echo "$HOME"`, []string{"$ expansion"}},
		{"no variable in single quotes", `echo '$HOME'`, nil},
		{"command substitution", "echo $(date)", []string{"command substitution"}},
		{"backticks", "echo `date`", []string{"command substitution"}},
		{"command substitution in double quotes", `echo "$(date) done"`, []string{"command substitution"}},
		{"a glob", "rm -f /tmp/*.log", []string{"globbing"}},
		{"a tilde argument", "cat ~/notes.txt", []string{"~ expansion"}},
		{"a variable assignment", "NODE_ENV=test npm test", []string{"a variable assignment"}},
		{"a shell builtin", "exit 0", []string{"the shell builtin exit"}},
		{"a semicolon", "a; b", []string{";"}},
		{"several lines", "a\nb", []string{"several lines"}},
		{"an unbalanced quote", `echo "oops`, []string{"unbalanced quotes"}},
		{"several reasons at once", `cd "$CLAUDE_PROJECT_DIR" && npm test 2>&1 | tail -5`, []string{"$ expansion", "&&", "a redirect", "a pipe", "the shell builtin cd"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := shellNeeds(tt.command); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("shellNeeds(%q) = %q, want %q", tt.command, got, tt.want)
			}
		})
	}
}

// A wrapped command must split back into exactly sh, -c and the original.
func TestRunnableCommandWrapsFaithfully(t *testing.T) {
	for _, command := range []string{
		"npx prettier --write . && npm run lint",
		`echo 'it'\''s' "$HOME" | tr a b`,
		`"$CLAUDE_PROJECT_DIR"/.claude/hooks/format.sh`,
		"a\nb",
	} {
		cmd, comment, _ := RunnableCommand(command, "")
		argv, err := shlex.Split(cmd)
		if err != nil {
			t.Fatalf("%q: %v", cmd, err)
		}
		if !reflect.DeepEqual(argv, []string{"sh", "-c", command}) {
			t.Errorf("RunnableCommand(%q) = %q, splits to %q", command, cmd, argv)
		}
		if !strings.HasPrefix(comment, "needs a shell") {
			t.Errorf("comment %q should say why", comment)
		}
	}
}

func TestRunnableCommandResolvesCursorPaths(t *testing.T) {
	tests := []struct {
		name, command, base, want string
	}{
		{"a ./ program is relative to hooks.json", "./hooks/audit.sh --all", "/srv/proj/.cursor", "/srv/proj/.cursor/hooks/audit.sh --all"},
		{"a dir/ program too", "hooks/format.sh", "/srv/proj/.cursor", "/srv/proj/.cursor/hooks/format.sh"},
		{"a program from PATH stays", "bun run hooks/x.ts", "/srv/proj/.cursor", "bun run hooks/x.ts"},
		{"an absolute program stays", "/usr/local/bin/audit", "/srv/proj/.cursor", "/usr/local/bin/audit"},
		{"Claude commands are not resolved", "./x.sh", "", "./x.sh"},
		{"a path with a space is quoted", "'./my hooks/a.sh'", "/srv", "'/srv/my hooks/a.sh'"},
		{"a ./ argument is relative to hooks.json", "python3 ./hooks/guard.py --strict", "/srv/.cursor", "python3 /srv/.cursor/hooks/guard.py --strict"},
		{"a dir/ argument only when the file is there", "python3 hooks/guard.py", "/nonexistent/.cursor", "python3 hooks/guard.py"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, _, _ := RunnableCommand(tt.command, tt.base); got != tt.want {
				t.Errorf("RunnableCommand(%q) = %q, want %q", tt.command, got, tt.want)
			}
		})
	}
}

func TestImportClaude(t *testing.T) {
	settings := `{
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [
        {"type": "command", "command": "python3 .claude/hooks/guard.py", "timeout": 10},
        {"type": "command", "command": "python3 .claude/hooks/guard.py", "timeout": 10}
      ]},
      {"matcher": "*", "hooks": [{"type": "command", "command": "log.sh", "timeout": 5}]},
      {"matcher": "Task", "hooks": [{"type": "command", "command": "spawn-guard.sh", "timeout": 5}]},
      {"matcher": "Task|Agent", "hooks": [{"type": "command", "command": "both.sh", "timeout": 5}]}
    ],
    "PostToolUseFailure": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "alert.sh", "timeout": 5}]}],
    "UserPromptSubmit": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "ctx.sh", "timeout": 5}]}],
    "PreCompact": [{"hooks": [{"type": "command", "command": "save.sh"}]}],
    "Stop": [{"hooks": [{"type": "agent", "prompt": "check"}, {"type": "command", "command": "exec.sh", "args": ["--fast", "two words"], "timeout": 5}]}],
    "Bogus": "no"
  }
}`
	im, err := Import(Claude, "settings.json", []byte(settings))
	if err != nil {
		t.Fatal(err)
	}
	want := []config.Entry{
		{Event: "pre_tool_call", Matcher: "Bash", Command: "python3 .claude/hooks/guard.py", Timeout: 10, Dialect: Claude},
		{Event: "pre_tool_call", Command: "log.sh", Timeout: 5, Dialect: Claude},
		{Event: "pre_tool_call", Matcher: "Task", Command: "spawn-guard.sh", Timeout: 5, Dialect: Claude},
		{Event: "pre_tool_call", Matcher: "Task|Agent", Command: "both.sh", Timeout: 5, Dialect: Claude},
		{Event: "post_tool_call", Matcher: "Bash", Command: "alert.sh", Timeout: 5, Dialect: Claude, DialectEvent: "PostToolUseFailure"},
		{Event: "pre_llm_call", Command: "ctx.sh", Timeout: 5, Dialect: Claude},
		{Event: "pre_verify", Command: "exec.sh --fast 'two words'", Timeout: 5, Dialect: Claude},
	}
	if !reflect.DeepEqual(im.Entries, want) {
		t.Errorf("entries\n got %+v\nwant %+v", im.Entries, want)
	}
	if containsWarning(im.Warnings, `settings.json: hooks.PreToolUse[3]`) {
		t.Errorf("a matcher that names Agent too was warned about:\n%s", strings.Join(im.Warnings, "\n"))
	}
	for _, w := range []string{
		"hooks.PreToolUse[0].hooks[1]: the same hook",
		`hooks.PreToolUse[2]: matcher "Task" names Task, which Claude Code calls Agent since 2.1.63`,
		"hooks.UserPromptSubmit[0]: Claude Code ignores matchers on UserPromptSubmit",
		`hooks.PreCompact[0].hooks[0]: PreCompact hook "save.sh" cannot be carried over: Noora has no event before context compaction`,
		`hooks.Stop[0].hooks[0]: a hook of type "agent" is evaluated by a model in Claude Code`,
		"hooks.Bogus: expected a list of matcher groups",
	} {
		if !containsWarning(im.Warnings, "settings.json: "+w) {
			t.Errorf("no warning %q in\n%s", w, strings.Join(im.Warnings, "\n"))
		}
	}
}

func TestImportCursor(t *testing.T) {
	hooks := `{"version": 1, "hooks": {
  "beforeShellExecution": [{"command": "./hooks/block-git.sh", "timeout": 5, "failClosed": true}],
  "afterFileEdit": [{"command": "./hooks/format.sh", "failClosed": true}],
  "beforeTabFileRead": [{"command": "./hooks/redact.sh"}],
  "sessionStart": [{"command": "./hooks/start.sh"}],
  "stop": [{"command": "./hooks/audit.sh", "loop_limit": 3}]
}}`
	im, err := Import(Cursor, "/srv/p/.cursor/hooks.json", []byte(hooks))
	if err != nil {
		t.Fatal(err)
	}
	want := []config.Entry{
		{Event: "pre_tool_call", Command: "/srv/p/.cursor/hooks/block-git.sh", Timeout: 5, FailClosed: true, Dialect: Cursor, DialectEvent: "beforeShellExecution"},
		{Event: "post_tool_call", Command: "/srv/p/.cursor/hooks/format.sh", Dialect: Cursor, DialectEvent: "afterFileEdit"},
		{Event: "pre_verify", Command: "/srv/p/.cursor/hooks/audit.sh", Dialect: Cursor},
	}
	if !reflect.DeepEqual(im.Entries, want) {
		t.Errorf("entries\n got %+v\nwant %+v", im.Entries, want)
	}
	for _, w := range []string{
		"hooks.afterFileEdit[0]: failClosed applies only to hooks that can block",
		"hooks.beforeTabFileRead[0]: beforeTabFileRead hook",
		"hooks.sessionStart[0]: sessionStart hook \"./hooks/start.sh\" cannot be carried over: it is newer",
		"hooks.stop[0]: loop_limit has no noora-hooks counterpart",
	} {
		if !containsWarning(im.Warnings, "/srv/p/.cursor/hooks.json: "+w) {
			t.Errorf("no warning %q in\n%s", w, strings.Join(im.Warnings, "\n"))
		}
	}
}

func TestImportRefusesWhatIsNotJSON(t *testing.T) {
	_, err := Import(Claude, "s.json", []byte("{\n  \"hooks\": {,\n}"))
	var se *config.SyntaxError
	if !errors.As(err, &se) || se.Line != 2 {
		t.Fatalf("err = %v, want a syntax error on line 2", err)
	}
	if _, err := Import(Cursor, "h.json", []byte(`[1]`)); err == nil {
		t.Error("an array was accepted")
	}
}

func containsWarning(warnings []string, prefix string) bool {
	for _, w := range warnings {
		if strings.HasPrefix(w, prefix) {
			return true
		}
	}
	return false
}
