package config

import "testing"

func TestJournalSetting(t *testing.T) {
	tests := []struct {
		name, yaml string
		off, warns bool
	}{
		{"the journal is on by default", "hooks: {}\n", false, false},
		{"journal: false turns it off", "journal: false\n", true, false},
		{"YAML 1.1's off turns it off, as PyYAML reads it", "journal: off\n", true, false},
		{"journal: true keeps it on", "journal: true\n", false, false},
		{"a value that is not a boolean warns and keeps it on", "journal: sometimes\n", false, true},
		{"an empty value keeps it on", "journal:\n", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse("config.yaml", []byte(tt.yaml))
			if err != nil {
				t.Fatal(err)
			}
			if c.JournalOff != tt.off || (len(c.Warnings) > 0) != tt.warns {
				t.Errorf("JournalOff = %v, warnings %v; want %v, warns %v", c.JournalOff, c.Warnings, tt.off, tt.warns)
			}
		})
	}
}

func TestAnEntryKnowsWhereItIs(t *testing.T) {
	c, err := Parse("/home/u/.noora/config.yaml", []byte("hooks:\n  pre_tool_call:\n    - command: a\n    - command: b\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.ShellHooks[1].Where(); got != "/home/u/.noora/config.yaml:4" {
		t.Errorf("Where = %q, want the file and the entry's line", got)
	}
}
