//go:build unix

package runner

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestStartDetached(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "child.log")
	extra, err := os.Create(filepath.Join(dir, "extra"))
	if err != nil {
		t.Fatal(err)
	}
	defer extra.Close()
	// The child reports its session, its stdin, its environment and fd 3,
	// then exits; the output goes to the log.
	script := `echo "sid=$(cut -d' ' -f6 /proc/self/stat) pid=$$"; ` +
		`read -r line || echo "stdin=empty"; ` +
		`echo "env=$ONLY_THIS"; echo "dir=$(pwd)"; echo "fd3" >&3; echo "err" >&2`
	pid, err := StartDetached(context.Background(), Detached{
		Argv:       []string{"/bin/sh", "-c", script},
		Dir:        dir,
		Env:        []string{"ONLY_THIS=yes"},
		Log:        log,
		ExtraFiles: []*os.File{extra},
	})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Kill(pid, 0) == nil && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond) // reaped by StartDetached once it exits
	}
	data, _ := os.ReadFile(log)
	out := string(data)
	wantLines := []string{
		"sid=" + strconv.Itoa(pid) + " pid=" + strconv.Itoa(pid), // a session of its own
		"stdin=empty", "env=yes", "dir=" + dir, "err",
	}
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		wantLines = wantLines[1:] // no /proc: the session is not visible
	}
	for _, want := range wantLines {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("log %q lacks %q", out, want)
		}
	}
	if fd3, _ := os.ReadFile(extra.Name()); string(fd3) != "fd3\n" {
		t.Errorf("fd 3 got %q, want the extra file", fd3)
	}
	if info, err := os.Stat(log); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("log mode %v (%v), want 0600", info.Mode(), err)
	}
}

func TestStartDetachedFailures(t *testing.T) {
	dir := t.TempDir()
	_, err := StartDetached(context.Background(), Detached{Argv: []string{"no-such-program-here"}, Env: []string{"PATH=" + dir}, Log: filepath.Join(dir, "log")})
	if err == nil || !strings.Contains(err.Error(), ErrNotFound.Error()) {
		t.Errorf("missing program: %v, want %v", err, ErrNotFound)
	}
	_, err = StartDetached(context.Background(), Detached{Argv: []string{"/bin/sh"}, Log: filepath.Join(dir, "no", "log")})
	if err == nil || !strings.Contains(err.Error(), "open log") {
		t.Errorf("unwritable log: %v, want an open log error", err)
	}
}

func TestStartDetachedStopsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	pid, err := StartDetached(ctx, Detached{Argv: []string{"/bin/sh", "-c", "sleep 30 & wait"}, Log: filepath.Join(t.TempDir(), "log")})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Kill(-pid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("process group %d still alive 10s after its context ended", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
