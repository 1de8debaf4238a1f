package runner

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestShebangProblem(t *testing.T) {
	dir := t.TempDir()
	env := []string{"PATH=/usr/bin:/bin"}
	tests := []struct{ name, content, want string }{
		{"a script whose interpreter exists is fine", "#!/bin/sh\necho {}\n", ""},
		{"a file without a #! line is not ours to judge", "echo {}\n", ""},
		{"a missing interpreter is named", "#!/no/such/python3 -u\n", "its interpreter /no/such/python3 (from its #! line) does not exist"},
		{"a #! line ending in \\r says so", "#!/bin/sh\r\necho {}\r\n", `its #! line ends in \r (Windows CRLF line endings)`},
		{"env with a program not in PATH names the program", "#!/usr/bin/env no-such-interp-xyz\n", "its interpreter no-such-interp-xyz (from its #! line: /usr/bin/env no-such-interp-xyz) is not in PATH"},
		{"env with a program in PATH is fine", "#!/usr/bin/env sh\n", ""},
		{"a #! line longer than the kernel reads is cut, not overread", "#!/no/" + strings.Repeat("x", 1000) + "\n", "does not exist"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, "s"+string(rune('a'+i)))
			if err := os.WriteFile(path, []byte(tt.content), 0o755); err != nil {
				t.Fatal(err)
			}
			err := ShebangProblem(path, env)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("problem %v, want none", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("problem %v, want one saying %q", err, tt.want)
			case err != nil && !errors.Is(err, ErrInterpreter):
				t.Errorf("%v is not ErrInterpreter", err)
			}
		})
	}
}
