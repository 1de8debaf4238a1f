package consent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
		t.Fatal(err)
	}
}

func TestBindingDrift(t *testing.T) {
	root := t.TempDir()
	projA, projB := filepath.Join(root, "a"), filepath.Join(root, "b")
	write(t, filepath.Join(projA, "hooks", "guard.sh"), "#!/bin/sh\necho a\n")
	write(t, filepath.Join(projB, "hooks", "guard.sh"), "#!/bin/sh\necho b\n")
	write(t, filepath.Join(root, "bin", "lint-hook"), "#!/bin/sh\necho lint\n")
	write(t, filepath.Join(root, "old.sh"), "#!/bin/sh\necho old\n")
	write(t, filepath.Join(root, "new.sh"), "#!/bin/sh\necho new\n")
	env := []string{"PATH=" + filepath.Join(root, "bin")}
	past := time.Now().Add(-time.Hour)
	approve := func(command, cwd string) Approval {
		return NewApproval("pre_tool_call", command, Bind(command, cwd, env), time.Now())
	}

	tests := []struct {
		name      string
		approval  func() Approval
		change    func()
		command   string
		cwd       string
		wantDrift string // a fragment of the reason; "" for none
	}{
		{
			name:     "the same file with the same content is covered",
			approval: func() Approval { return approve("./hooks/guard.sh", projA) },
			command:  "./hooks/guard.sh", cwd: projA,
		},
		{
			name:     "the same relative command in another project is another file",
			approval: func() Approval { return approve("./hooks/guard.sh", projA) },
			command:  "./hooks/guard.sh", cwd: projB,
			wantDrift: "is another file here",
		},
		{
			name:     "a script run through an interpreter is resolved from the hook's directory too",
			approval: func() Approval { return approve("bash hooks/guard.sh", projA) },
			command:  "bash hooks/guard.sh", cwd: projB, wantDrift: "is another file here",
		},
		{
			name:     "a program named without a slash is found in PATH",
			approval: func() Approval { return approve("lint-hook --strict", projA) },
			command:  "lint-hook --strict", cwd: projB,
		},
		{
			name:     "other content with the mtime put back (cp -p) is drift",
			approval: func() Approval { return approve(filepath.Join(root, "old.sh"), root) },
			change: func() {
				st, _ := os.Stat(filepath.Join(root, "old.sh"))
				write(t, filepath.Join(root, "old.sh"), "#!/bin/sh\necho evil\n")
				os.Chtimes(filepath.Join(root, "old.sh"), st.ModTime(), st.ModTime())
			},
			command: filepath.Join(root, "old.sh"), cwd: root, wantDrift: "has other content",
		},
		{
			name: "a symlink repointed at an older file is drift",
			approval: func() Approval {
				os.Symlink(filepath.Join(root, "new.sh"), filepath.Join(root, "link.sh"))
				return approve(filepath.Join(root, "link.sh"), root)
			},
			change: func() {
				os.Chtimes(filepath.Join(root, "old.sh"), past, past)
				os.Remove(filepath.Join(root, "link.sh"))
				os.Symlink(filepath.Join(root, "old.sh"), filepath.Join(root, "link.sh"))
			},
			command: filepath.Join(root, "link.sh"), cwd: root, wantDrift: "is another file here",
		},
		{
			name: "an old entry with only an mtime drifts when the script is newer",
			approval: func() Approval {
				return Approval{Event: "pre_tool_call", Command: "./hooks/guard.sh", ScriptMtime: past.UTC().Format(time.RFC3339Nano)}
			},
			command: "./hooks/guard.sh", cwd: projA, wantDrift: "changed since it was approved",
		},
		{
			name:     "an entry written by hand cannot drift",
			approval: func() Approval { return Approval{Event: "pre_tool_call", Command: "./hooks/guard.sh"} },
			command:  "./hooks/guard.sh", cwd: projB,
		},
		{
			name:     "a script that is not there is no drift: it cannot run",
			approval: func() Approval { return approve("./hooks/guard.sh", projA) },
			command:  "./hooks/guard.sh", cwd: root,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := tt.approval()
			if tt.change != nil {
				tt.change()
			}
			got := a.Drift(Bind(tt.command, tt.cwd, env))
			switch {
			case tt.wantDrift == "" && got != "":
				t.Errorf("drift %q, want none", got)
			case tt.wantDrift != "" && !strings.Contains(got, tt.wantDrift):
				t.Errorf("drift %q, want one saying %q", got, tt.wantDrift)
			}
		})
	}
}

func TestOldEntriesAreReadAndUpgradedByTheNextApproval(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "guard.sh")
	write(t, script, "#!/bin/sh\n")
	s := Store{Path: filepath.Join(dir, "allow.json")}
	old := `{"approvals": [{"event": "pre_tool_call", "command": "` + script + `", "approved_at": "2026-11-29T10:00:00Z", "script_mtime_at_approval": "2099-01-01T00:00:00Z"}]}`
	if err := os.WriteFile(s.Path, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	a, ok := s.Load().Find("pre_tool_call", script)
	if !ok {
		t.Fatal("old entry not read")
	}
	if why := a.Drift(Bind(script, dir, nil)); why != "" {
		t.Fatalf("old entry drifts: %s", why)
	}
	if err := s.Record(NewApproval("pre_tool_call", script, Bind(script, dir, nil), time.Now())); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(s.Path)
	if !strings.Contains(string(data), `"script_path":"`+script+`"`) || !strings.Contains(string(data), `"script_sha256":"`) {
		t.Errorf("approval not upgraded: %s", data)
	}
	if n := strings.Count(string(data), `"event"`); n != 1 {
		t.Errorf("%d entries, want the old one replaced", n)
	}
}
