package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/noora-hooks/noora-hooks/protocol"
)

func parse(t *testing.T, text string) *Config {
	t.Helper()
	c, err := Parse("config.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestShellHookEntries(t *testing.T) {
	c := parse(t, `
hooks:
  pre_tool_call:
    - matcher: " terminal|patch "
      command: "  ~/.noora/agent-hooks/x.sh  "
      timeout: 10
      fail_closed: true
    - command: y
      failClosed: true
      timeout: "20"
  post_tool_call:
    - command: z
      matcher: ""
hooks_auto_accept: true
hooks_concurrency: 4
`)
	if len(c.Warnings) != 0 {
		t.Fatalf("warnings: %v", c.Warnings)
	}
	if len(c.ShellHooks) != 3 {
		t.Fatalf("got %d hooks", len(c.ShellHooks))
	}
	h := c.ShellHooks[0]
	if h.Event != "pre_tool_call" || h.Command != "~/.noora/agent-hooks/x.sh" || h.Timeout != 10*time.Second || !h.FailClosed || h.Matcher.Source != "terminal|patch" || h.Line != 4 || h.Index != 1 {
		t.Errorf("first hook: %+v", h)
	}
	if h := c.ShellHooks[1]; !h.FailClosed || h.Timeout != 20*time.Second || h.Matcher != nil {
		t.Errorf("second hook: %+v", h)
	}
	if h := c.ShellHooks[2]; h.Matcher != nil {
		t.Errorf("a blank matcher should mean none: %+v", h.Matcher)
	}
	if !c.AutoAccept || c.Concurrency != 4 {
		t.Errorf("auto accept %v, concurrency %d", c.AutoAccept, c.Concurrency)
	}
}

func TestMatcher(t *testing.T) {
	tests := []struct {
		name, pattern, tool string
		hasTool, want       bool
	}{
		{"a plain name matches itself", "terminal", "terminal", true, true},
		{"a plain name does not match a longer name", "term", "terminal", true, false},
		{"an alternation is anchored as a whole", "write_file|patch", "patch", true, true},
		{"an alternation does not match a substring", "write_file|patch", "patched", true, false},
		{"a pattern that does not compile is compared literally", "(bad", "(bad", true, true},
		{"a missing tool name never matches", ".*", "", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NewMatcher(tt.pattern).Match(tt.tool, tt.hasTool); got != tt.want {
				t.Errorf("got %v", got)
			}
		})
	}
	var none *Matcher
	if !none.Match("", false) {
		t.Error("no matcher must match everything")
	}
}

func TestSyntaxErrorsCarryLineAndColumn(t *testing.T) {
	tests := []struct {
		name, text string
		line, col  int
	}{
		{"a colon inside a plain value", "hooks:\n  pre_tool_call:\n    - command: a: b\n", 3, 17},
		{"a tab for indentation", "hooks:\n\tpre_tool_call: []\n", 2, 1},
		{"an unclosed flow sequence", "hooks: [a, b\n", 1, 9},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("c.yaml", []byte(tt.text))
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("err %v is not a *SyntaxError", err)
			}
			if se.Line != tt.line || se.Col != tt.col || !strings.HasPrefix(se.Error(), "c.yaml:") {
				t.Errorf("got %s (line %d col %d), want %d:%d", se, se.Line, se.Col, tt.line, tt.col)
			}
		})
	}
}

func TestLoadMissingFileIsEmpty(t *testing.T) {
	c, err := Load(filepath.Join(t.TempDir(), "nope.yaml"))
	if err != nil || c.Exists || len(c.ShellHooks) != 0 {
		t.Fatalf("got %+v, %v", c, err)
	}
}

func TestOddDocumentsWarnInsteadOfFailing(t *testing.T) {
	for _, text := range []string{"", "~", "- a\n- b\n", "hooks: 5\n", "hooks:\n  pre_tool_call: {}\n", "hooks_concurrency: many\n", "hooks_auto_accept: [1]\n"} {
		if _, err := Parse("c.yaml", []byte(text)); err != nil {
			t.Errorf("%q: %v", text, err)
		}
	}
}

func TestResolve(t *testing.T) {
	env := map[string]string{"NOORA_HOME": "/env/home"}
	getenv := func(k string) string { return env[k] }
	p, _ := Resolve("", "", getenv)
	if p.Home != "/env/home" || p.Config != "/env/home/config.yaml" || p.Allowlist() != "/env/home/shell-hooks-allowlist.json" {
		t.Errorf("from the environment: %+v", p)
	}
	p, _ = Resolve("/flag", "/c.yaml", getenv)
	if p.Home != "/flag" || p.Config != "/c.yaml" {
		t.Errorf("flags win: %+v", p)
	}
	home, _ := os.UserHomeDir()
	p, _ = Resolve("", "", func(string) string { return "" })
	if p.Home != filepath.Join(home, ".noora") {
		t.Errorf("default: %+v", p)
	}
}

func TestTruthy(t *testing.T) {
	for _, s := range []string{"1", "true", "YES", " On ", "True"} {
		if !Truthy(s) {
			t.Errorf("%q should be true", s)
		}
	}
	for _, s := range []string{"", "0", "no", "off", "y", "enabled"} {
		if Truthy(s) {
			t.Errorf("%q should be false", s)
		}
	}
}

// FuzzParse: no config text crashes the parser, and what it accepts is valid.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"hooks:\n  pre_tool_call:\n    - command: x\n      matcher: a|b\n      timeout: 5\n      fail_closed: true\n",
		"hooks:\n  outbound: []\n  pre_tool_cal: [{command: x}]\n",
		"hooks: [a, b\n", "hooks:\n\tx: 1\n", "{hooks: {on_session_start: [{command: '', timeout: 1e99}]}}",
		"&a [*a]", "hooks_auto_accept: on\nhooks_concurrency: 999\n",
		"hooks:\n  on_stream_delta:\n    - command: tts\n      stream: true\nhooks_stream_queue_size: 9\nhooks_stream_idle_timeout: 2\nplugins: {stream_reasoning_deltas: yes}\n",
		"hooks:\n  pre_tool_call:\n    - url: https://p.example/c\n      headers: {Authorization: 'Bearer ${T}', 'X Y': z, A: [1]}\n      allowed_env_vars: [T, 9]\n      fail_closed: true\n    - {url: 'ftp://x', command: y}\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		c, err := Parse("f.yaml", []byte(text))
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || se.Line < 1 || se.Col < 1 {
				t.Fatalf("error %v is not a located syntax error", err)
			}
			return
		}
		for _, h := range c.ShellHooks {
			if strings.TrimSpace(h.Command) == "" || h.Timeout < time.Second || h.Timeout > MaxTimeout {
				t.Fatalf("invalid hook accepted: %+v", h)
			}
			if h.FailClosed && h.Event != "pre_tool_call" {
				t.Fatalf("fail_closed kept on %s", h.Event)
			}
			if ev, _ := protocol.Lookup(h.Event); h.Stream && (!ev.StreamLifecycle() || h.Dialect != "") {
				t.Fatalf("stream kept on %s (dialect %q)", h.Event, h.Dialect)
			}
		}
		if q := c.Stream.QueueSize(); q < 1 || q > MaxStreamQueueSize {
			t.Fatalf("stream queue size %d", q)
		}
		if d := c.Stream.IdleTimeout(); d < time.Second || d > MaxStreamIdleTimeout {
			t.Fatalf("stream idle timeout %v", d)
		}
		if c.Concurrency < 1 || c.Concurrency > MaxConcurrency {
			t.Fatalf("concurrency %d", c.Concurrency)
		}
	})
}
