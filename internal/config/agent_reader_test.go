package config

import (
	"strings"
	"testing"
	"time"
)

// The agent reads config.yaml with PyYAML and then agent/shell_hooks.py. Each
// case below is one pre_tool_call entry; the expectation is the ShellHookSpec
// the agent builds from it (or that it skips the entry), and, where
// noora-hooks says more than the agent, the warning it gives.
func TestEntriesReadAsTheAgentReadsThem(t *testing.T) {
	type want struct {
		skipped    bool
		command    string
		matcher    string // "" means none: the hook runs for every tool
		timeout    time.Duration
		failClosed bool
		warning    string // a part of the one warning expected, "" for none
	}
	tests := []struct {
		name, entry string
		want        want
	}{
		// _parse_single_entry: fail_closed must be isinstance(bool), which a
		// YAML 1.1 yes/on is.
		{"fail_closed yes is true", "command: x\nfail_closed: yes", want{command: "x", timeout: 60 * time.Second, failClosed: true}},
		{"fail_closed on is true", "command: x\nfail_closed: on", want{command: "x", timeout: 60 * time.Second, failClosed: true}},
		{"fail_closed Off is false", "command: x\nfail_closed: Off", want{command: "x", timeout: 60 * time.Second}},
		{"a quoted fail_closed yes is a string and false", "command: x\nfail_closed: 'yes'", want{command: "x", timeout: 60 * time.Second, warning: `fail_closed must be a boolean, got a string "yes"`}},
		{"fail_closed y is a string and false", "command: x\nfail_closed: y", want{command: "x", timeout: 60 * time.Second, warning: `got a string "y"`}},
		{"a null fail_closed still wins over failClosed", "command: x\nfailClosed: true\nfail_closed: null", want{command: "x", timeout: 60 * time.Second, warning: "got null"}},
		// _parse_single_entry: timeout = int(value).
		{"a timeout of 1.9 is truncated to 1 s", "command: x\ntimeout: 1.9", want{command: "x", timeout: time.Second, warning: `timeout a float "1.9" is not a whole number of seconds; read as 1`}},
		{"a timeout of true is 1 s", "command: x\ntimeout: true", want{command: "x", timeout: time.Second, warning: "read as 1"}},
		{"a quoted hex timeout is no integer to int()", "command: x\ntimeout: '0x1'", want{command: "x", timeout: 60 * time.Second, warning: `timeout a string "0x1" is not a whole number`}},
		{"a timeout of 1e0 is a string to YAML 1.1", "command: x\ntimeout: 1e0", want{command: "x", timeout: 60 * time.Second, warning: `a string "1e0"`}},
		{"an unquoted hex timeout is an integer", "command: x\ntimeout: 0x1", want{command: "x", timeout: time.Second}},
		{"a sexagesimal timeout is base 60", "command: x\ntimeout: 1:30", want{command: "x", timeout: 90 * time.Second}},
		{"underscores in a timeout are dropped", "command: x\ntimeout: 1_0", want{command: "x", timeout: 10 * time.Second}},
		{"a quoted timeout with blanks is read", "command: x\ntimeout: ' 12 '", want{command: "x", timeout: 12 * time.Second}},
		{"a negative fraction truncates to 0 and gives the default", "command: x\ntimeout: -0.5", want{command: "x", timeout: 60 * time.Second, warning: "under 1 second"}},
		{"a NaN timeout gives the default", "command: x\ntimeout: .nan", want{command: "x", timeout: 60 * time.Second, warning: "not a whole number"}},
		{"an infinite timeout gives the default, loudly", "command: x\ntimeout: .inf", want{command: "x", timeout: 60 * time.Second, warning: "the agent fails to load its hooks over it"}},
		{"a huge timeout is clamped", "command: x\ntimeout: 123456789012345678901234567890", want{command: "x", timeout: 300 * time.Second, warning: "clamped to 300"}},
		// _parse_single_entry: command must be isinstance(str).
		{"an integer command is skipped", "command: 12345\nfail_closed: true", want{skipped: true, warning: `command must be a string, got an integer "12345"`}},
		{"a boolean command is skipped", "command: yes", want{skipped: true, warning: `got a boolean "yes"`}},
		{"a date command is skipped", "command: 2024-01-02", want{skipped: true, warning: `got a date "2024-01-02"`}},
		{"a quoted number is a command", "command: '12345'", want{command: "12345", timeout: 60 * time.Second}},
		{"a command is stripped of Python's blanks", `command: "\x1fx\x1f"`, want{command: "x", timeout: 60 * time.Second}},
		{"a command given twice is the last one", "command: x\ncommand: y", want{command: "y", timeout: 60 * time.Second, warning: "command is given again on line 5; the later value wins"}},
		// _parse_single_entry: a matcher must be isinstance(str); else it is
		// ignored and the hook runs for every tool.
		{"an integer matcher is ignored", "command: x\nmatcher: 5", want{command: "x", timeout: 60 * time.Second, warning: `matcher must be a string, got an integer "5"; ignored, so the hook runs for every tool`}},
		{"a boolean matcher is ignored", "command: x\nmatcher: true", want{command: "x", timeout: 60 * time.Second, warning: `got a boolean "true"`}},
		{"a float matcher is ignored", "command: x\nmatcher: 1.5", want{command: "x", timeout: 60 * time.Second, warning: `got a float "1.5"`}},
		{"a quoted number is a matcher", "command: x\nmatcher: '5'", want{command: "x", matcher: "5", timeout: 60 * time.Second}},
		{"a matcher is stripped of Python's blanks", `command: x` + "\n" + `matcher: " terminal\x1f"`, want{command: "x", matcher: "terminal", timeout: 60 * time.Second}},
		// _ToolMatcherMixin: a pattern that does not compile is compared
		// literally, with a warning. Python's re compiles look-around, RE2
		// does not (SPEC §13): the warning says so.
		{"a matcher RE2 cannot read is literal, loudly", "command: x\nmatcher: '(?=a)b'", want{command: "x", matcher: "(?=a)b", timeout: 60 * time.Second, warning: `matcher "(?=a)b" is not a regular expression noora-hooks reads`}},
		// PyYAML's SafeConstructor.flatten_mapping: merge keys.
		{"a merge key brings in the anchored settings", "<<: {timeout: 5, fail_closed: yes, command: z}\ncommand: x", want{command: "x", timeout: 5 * time.Second, failClosed: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			indented := "      " + strings.ReplaceAll(tt.entry, "\n", "\n      ")
			c := parse(t, "hooks:\n  pre_tool_call:\n    -\n"+indented+"\n")
			w := tt.want
			switch {
			case w.warning == "" && len(c.Warnings) != 0:
				t.Errorf("unexpected warnings: %v", c.Warnings)
			case w.warning != "" && (len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0].Msg, w.warning)):
				t.Errorf("warnings %v, want one containing %q", c.Warnings, w.warning)
			}
			if w.skipped {
				if len(c.ShellHooks) != 0 {
					t.Errorf("the entry should be skipped: %+v", c.ShellHooks)
				}
				return
			}
			if len(c.ShellHooks) != 1 {
				t.Fatalf("got %d hooks", len(c.ShellHooks))
			}
			h := c.ShellHooks[0]
			matcher := ""
			if h.Matcher != nil {
				matcher = h.Matcher.Source
			}
			if h.Command != w.command || matcher != w.matcher || h.Timeout != w.timeout || h.FailClosed != w.failClosed {
				t.Errorf("got command %q matcher %q timeout %v fail_closed %v, want %q %q %v %v",
					h.Command, matcher, h.Timeout, h.FailClosed, w.command, w.matcher, w.timeout, w.failClosed)
			}
		})
	}
}

// _resolve_effective_accept: a boolean is itself, a string is true for 1,
// true, yes, on (stripped, any case); anything else is false.
func TestAutoAcceptReadAsTheAgentReadsIt(t *testing.T) {
	tests := []struct {
		name, value string
		want        bool
		warns       bool
	}{
		{"yes is true", "yes", true, false},
		{"on is true", "on", true, false},
		{"a quoted yes is true", "'yes'", true, false},
		{"a quoted 1 is true", "'1'", true, false},
		{"the integer 1 is false, loudly", "1", false, true},
		{"the float 1.0 is false, loudly", "1.0", false, true},
		{"y is a string the agent does not take", "y", false, false},
		{"a string padded with U+001F is true", `"\x1ftrue"`, true, false},
		{"null is false", "~", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := parse(t, "hooks_auto_accept: "+tt.value+"\n")
			if c.AutoAccept != tt.want {
				t.Errorf("AutoAccept = %v, want %v", c.AutoAccept, tt.want)
			}
			if warned := len(c.Warnings) > 0; warned != tt.warns {
				t.Errorf("warnings %v, want some: %v", c.Warnings, tt.warns)
			}
		})
	}
}

// PyYAML builds a dict: a key given twice keeps its last value. The agent
// then sees one hooks section and one list per event.
func TestDuplicateKeysKeepTheLastValue(t *testing.T) {
	c := parse(t, `
hooks:
  pre_tool_call:
    - command: first
  pre_tool_call:
    - command: second
hooks:
  post_tool_call:
    - command: third
`)
	if len(c.ShellHooks) != 1 || c.ShellHooks[0].Command != "third" {
		t.Fatalf("hooks: %+v", c.ShellHooks)
	}
	if len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0].String(), "config.yaml:2: hooks is given again on line 7; the later value wins") {
		t.Fatalf("want one warning for the repeated hooks, got %v", c.Warnings)
	}
	c = parse(t, `
hooks:
  pre_tool_call:
    - command: first
  pre_tool_call:
    - command: second
`)
	if len(c.ShellHooks) != 1 || c.ShellHooks[0].Command != "second" {
		t.Fatalf("hooks: %+v", c.ShellHooks)
	}
	if len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0].String(), "config.yaml:3: hooks.pre_tool_call is given again on line 5") {
		t.Fatalf("want one warning for the repeated event, got %v", c.Warnings)
	}
}

func TestAnchoredEntriesAreRead(t *testing.T) {
	// PyYAML follows aliases; an entry or a list may be one.
	c := parse(t, `
base: &gate {command: gate, fail_closed: yes}
hooks:
  pre_tool_call:
    - *gate
  post_tool_call: &list
    - command: after
  on_session_end: *list
`)
	if len(c.Warnings) != 0 {
		t.Fatalf("warnings: %v", c.Warnings)
	}
	if len(c.ShellHooks) != 3 || !c.ShellHooks[0].FailClosed || c.ShellHooks[2].Event != "on_session_end" {
		t.Fatalf("hooks: %+v", c.ShellHooks)
	}
}

func TestTheAgentsOutputSpillSectionIsNotAnEvent(t *testing.T) {
	// _parse_hooks_block skips the reserved output_spill and outbound keys.
	c := parse(t, "hooks:\n  output_spill:\n    max_bytes: 10\n  pre_tool_call:\n    - command: x\n")
	if len(c.Warnings) != 0 || len(c.ShellHooks) != 1 {
		t.Fatalf("warnings %v, hooks %+v", c.Warnings, c.ShellHooks)
	}
}

func TestOwnSettingsReadYAML11Integers(t *testing.T) {
	tests := []struct {
		name, text string
		want       int
		warns      bool
	}{
		{"a hex concurrency is read", "0x10", 16, false},
		{"underscores are read", "1_0", 10, false},
		{"a quoted number is read", "'8'", 8, false},
		{"a huge number is clamped", "123456789012345678901234567890", MaxConcurrency, true},
		{"a fraction is refused", "1.5", DefaultConcurrency, true},
		{"a boolean is refused", "yes", DefaultConcurrency, true},
		{"a value PyYAML cannot load is refused", "0b_", DefaultConcurrency, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := parse(t, "hooks_concurrency: "+tt.text+"\n")
			if c.Concurrency != tt.want || (len(c.Warnings) > 0) != tt.warns {
				t.Errorf("concurrency %d, warnings %v; want %d, warnings %v", c.Concurrency, c.Warnings, tt.want, tt.warns)
			}
		})
	}
}

func TestAValuePyYAMLCannotLoadSaysWhy(t *testing.T) {
	c := parse(t, "hooks:\n  pre_tool_call:\n    - command: x\n      timeout: 0x_\n")
	if len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0].String(), `config.yaml:4: pre_tool_call entry 1: timeout a value PyYAML cannot load "0x_" (invalid literal for int()`) {
		t.Fatalf("warnings: %v", c.Warnings)
	}
	if c.ShellHooks[0].Timeout != DefaultTimeout {
		t.Errorf("timeout %v", c.ShellHooks[0].Timeout)
	}
}
