package compat

import "testing"

func TestMatch(t *testing.T) {
	tests := []struct {
		name             string
		pattern, subject string
		want             bool
	}{
		{"a star matches everything", "*", "Bash", true},
		{"an empty matcher matches everything", "", "Read", true},
		{"a plain name matches that tool", "Bash", "Bash", true},
		{"a plain name is exact, not a substring", "Write", "NotebookWrite", false},
		{"names joined by a bar match each", "Edit|Write", "Write", true},
		{"names joined by a bar match nothing else", "Edit|Write", "Read", false},
		{"matching is case sensitive", "bash", "Bash", false},
		{"a regular expression may match anywhere", "Notebook.*", "NotebookEdit", true},
		{"an unanchored expression matches inside the name", "mcp__.*__write", "mcp__fs__write_file", true},
		{"an expression that does not match", "mcp__memory__.*", "mcp__github__search", false},
		{"lookahead does not compile in Go and is compared literally", "(?!Bash).*", "Read", false},
		{"the literal comparison still accepts its own text", "(?!Bash).*", "(?!Bash).*", true},
		{"blanks around a matcher are ignored", "  Bash ", "Bash", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Match(tt.pattern, tt.subject); got != tt.want {
				t.Errorf("Match(%q, %q) = %v, want %v", tt.pattern, tt.subject, got, tt.want)
			}
		})
	}
}
