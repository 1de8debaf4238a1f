package consent

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/shlex"
)

// TestMain lets the test binary act as a separate process recording one
// approval, for the concurrent-writers test.
func TestMain(m *testing.M) {
	if path := os.Getenv("CONSENT_TEST_RECORD_PATH"); path != "" {
		s := Store{Path: path}
		if err := s.Record(Approval{Event: "pre_tool_call", Command: os.Getenv("CONSENT_TEST_RECORD_COMMAND")}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestConcurrentProcessesLoseNoApproval(t *testing.T) {
	path := filepath.Join(t.TempDir(), "home", "shell-hooks-allowlist.json")
	const writers = 20
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for i := 0; i < writers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "CONSENT_TEST_RECORD_PATH="+path, fmt.Sprintf("CONSENT_TEST_RECORD_COMMAND=hook-%d.sh", i))
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Errorf("writer %d: %v: %s", i, err, out)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	l := Store{Path: path}.Load()
	for i := 0; i < writers; i++ {
		if _, ok := l.Find("pre_tool_call", fmt.Sprintf("hook-%d.sh", i)); !ok {
			t.Errorf("approval of hook-%d.sh was lost", i)
		}
	}
	if len(l.Approvals) != writers {
		t.Errorf("%d approvals, want %d", len(l.Approvals), writers)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}
}

func TestRecordKeepsWhatItDoesNotKnow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "allow.json")
	orig := `{"approvals": [{"event": "a", "command": "x", "note": "mine"}, "odd entry", {"event": 1}], "version": 2}`
	if err := os.WriteFile(path, []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	s := Store{Path: path}
	if err := s.Record(Approval{Event: "a", Command: "x", ApprovedAt: "2026-11-29T10:00:00Z"}, Approval{Event: "b", Command: "y"}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	for _, want := range []string{`"note":"mine"`, `"odd entry"`, `{"event": 1}`, `"version": 2`, `"approved_at":"2026-11-29T10:00:00Z"`, `"event":"b","command":"y"`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("rewritten file lost %s:\n%s", want, data)
		}
	}
	if n := strings.Count(string(data), `"command":"x"`); n != 1 {
		t.Errorf("the re-approved pair appears %d times", n)
	}
}

func TestRevokeRemovesEveryEventOfACommand(t *testing.T) {
	s := Store{Path: filepath.Join(t.TempDir(), "allow.json")}
	if err := s.Record(Approval{Event: "a", Command: "x"}, Approval{Event: "b", Command: "x"}, Approval{Event: "a", Command: "y"}); err != nil {
		t.Fatal(err)
	}
	n, err := s.Revoke("x")
	if err != nil || n != 2 {
		t.Fatalf("revoked %d, %v", n, err)
	}
	l := s.Load()
	if len(l.Approvals) != 1 || l.Approvals[0].Command != "y" {
		t.Errorf("left %+v", l.Approvals)
	}
	if n, _ := s.Revoke("nothing"); n != 0 {
		t.Errorf("revoked %d of an unknown command", n)
	}
}

func TestBrokenFileIsMovedAsideNotOverwritten(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "allow.json")
	if err := os.WriteFile(path, []byte(`{"approvals": [`), 0o600); err != nil {
		t.Fatal(err)
	}
	var warnings []string
	s := Store{Path: path, Warn: func(m string) { warnings = append(warnings, m) }}
	if l := s.Load(); len(l.Approvals) != 0 || len(warnings) != 1 {
		t.Fatalf("load: %+v, warnings %v", l, warnings)
	}
	if err := s.Record(Approval{Event: "a", Command: "x"}); err != nil {
		t.Fatal(err)
	}
	aside, _ := filepath.Glob(path + ".broken-*")
	if len(aside) != 1 {
		t.Fatalf("broken file not moved aside: %v", aside)
	}
	if data, _ := os.ReadFile(aside[0]); string(data) != `{"approvals": [` {
		t.Errorf("the broken file changed: %q", data)
	}
}

func TestScript(t *testing.T) {
	tests := []struct{ name, command, want string }{
		{"a token with a script extension wins", "python3 /opt/x.py --flag", "/opt/x.py"},
		{"else the first token with a slash", "node-runner ./bin/tool arg", "./bin/tool"},
		{"a tilde counts as a path", "~/hooks/check", "~/hooks/check"},
		{"else the first token", "black --check", "black"},
		{"quotes are honoured", `bash "my dir/run.sh"`, "my dir/run.sh"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Script(tt.command, shlex.Split); got != tt.want {
				t.Errorf("got %q", got)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"approvals":[{"event":"a","command":"b"}]}`, `{"approvals":{}}`, `[]`, `{"approvals":[1,"x",{"event":null}]}`, ``} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		l, err := Parse([]byte(data))
		if err != nil {
			return
		}
		out, _ := l.MarshalJSON()
		back, err := Parse(out)
		if err != nil {
			t.Fatalf("rewritten allowlist does not parse: %v\n%s", err, out)
		}
		if len(back.Approvals) != len(l.Approvals) {
			t.Fatalf("rewrite changed the approvals: %d → %d", len(l.Approvals), len(back.Approvals))
		}
	})
}
