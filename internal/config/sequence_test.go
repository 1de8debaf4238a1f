package config

import (
	"strings"
	"testing"
)

func TestSequenceEntries(t *testing.T) {
	tests := []struct {
		name     string
		yaml     string
		sequence string
		warning  string // a part of the one warning, "" for none
	}{
		{"a named sequence is kept",
			"hooks:\n  pre_tool_call:\n    - command: x\n      sequence: lint\n", "lint", ""},
		{"blanks around the name are stripped",
			"hooks:\n  pre_tool_call:\n    - command: x\n      sequence: '  lint '\n", "lint", ""},
		{"null means no sequence",
			"hooks:\n  pre_tool_call:\n    - command: x\n      sequence: ~\n", "", ""},
		{"a sequence that is not a string is ignored with a warning",
			"hooks:\n  pre_tool_call:\n    - command: x\n      sequence: yes\n", "", "sequence must be a name (a string), got a boolean"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse("config.yaml", []byte(tt.yaml))
			if err != nil {
				t.Fatal(err)
			}
			if len(c.ShellHooks) != 1 || c.ShellHooks[0].Sequence != tt.sequence {
				t.Fatalf("hooks %+v, want one with sequence %q", c.ShellHooks, tt.sequence)
			}
			var got []string
			for _, w := range c.Warnings {
				got = append(got, w.String())
			}
			if all := strings.Join(got, "\n"); tt.warning == "" && all != "" || !strings.Contains(all, tt.warning) {
				t.Errorf("warnings %q, want %q", all, tt.warning)
			}
		})
	}
}

func TestAnEntryWithASequenceIsWrittenBack(t *testing.T) {
	n := Entry{Event: "pre_tool_call", Command: "x", Sequence: "gemini hooks.BeforeTool[0]"}.node()
	last := n.Content[len(n.Content)-2:]
	if last[0].Value != "sequence" || last[1].Value != "gemini hooks.BeforeTool[0]" {
		t.Errorf("the entry ends with %s: %s, want its sequence", last[0].Value, last[1].Value)
	}
}
