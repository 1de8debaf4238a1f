//go:build unix

package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func sh(script string) []string { return []string{"/bin/sh", "-c", script} }

// groupGone waits up to 5 s for the process group in pgidFile to disappear.
func groupGone(t *testing.T, pgidFile string) {
	t.Helper()
	data, err := os.ReadFile(pgidFile)
	if err != nil {
		t.Fatalf("the hook did not record its process group: %v", err)
	}
	pgid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(-pgid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("process group %d is still alive", pgid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestHostileHooks(t *testing.T) {
	dir := t.TempDir()
	pg := func(name string) string { return filepath.Join(dir, name+".pgid") }
	notExec := filepath.Join(dir, "not-exec.sh")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\necho {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bigPayload := []byte(strings.Repeat("x", 5<<20))

	tests := []struct {
		name     string
		argv     []string
		stdin    []byte
		timeout  time.Duration
		within   time.Duration // generous upper bound: catches hangs, not slowness
		end      End
		code     int
		stdout   string // prefix expected on stdout
		pgidFile string
		errIs    error
		check    func(t *testing.T, o Outcome)
	}{
		{
			name: "a hook that sleeps past its timeout is killed at the timeout",
			argv: sh("echo $$ > " + pg("sleep") + "; sleep 30"), timeout: time.Second,
			within: 4 * time.Second, end: TimedOut, code: -1, pgidFile: pg("sleep"),
		},
		{
			name: "a hook that ignores SIGTERM is killed with SIGKILL a second later",
			argv: sh("trap '' TERM; echo $$ > " + pg("term") + "; sleep 30; sleep 30"), timeout: time.Second,
			within: 5 * time.Second, end: TimedOut, code: -1, pgidFile: pg("term"),
		},
		{
			name: "a hook that leaves a grandchild holding stdout answers with what it printed",
			argv: sh("echo $$ > " + pg("grand") + "; sleep 30 & echo '{\"ok\":1}'"), timeout: 10 * time.Second,
			within: 4 * time.Second, end: Exited, code: 0, stdout: `{"ok":1}`, pgidFile: pg("grand"),
		},
		{
			name: "a hook that prints 200 MiB is read to the end and cut at 1 MiB",
			argv: sh("head -c 209715200 /dev/zero"), timeout: 60 * time.Second,
			within: 30 * time.Second, end: Exited, code: 0,
			check: func(t *testing.T, o Outcome) {
				if len(o.Stdout) != StdoutLimit || !o.StdoutTruncated {
					t.Errorf("kept %d bytes (truncated=%v), want %d and truncated", len(o.Stdout), o.StdoutTruncated, StdoutLimit)
				}
			},
		},
		{
			name: "a hook that floods stderr is cut at 64 KiB",
			argv: sh("head -c 10485760 /dev/zero >&2; echo done"), timeout: 60 * time.Second,
			within: 30 * time.Second, end: Exited, code: 0, stdout: "done",
			check: func(t *testing.T, o Outcome) {
				if len(o.Stderr) != StderrLimit || !o.StderrTruncated {
					t.Errorf("kept %d bytes of stderr (truncated=%v), want %d", len(o.Stderr), o.StderrTruncated, StderrLimit)
				}
			},
		},
		{
			name: "a hook that never reads a 5 MiB payload is not an error",
			argv: sh("echo $$ > " + pg("nostdin") + "; echo '{}'"), stdin: bigPayload, timeout: 10 * time.Second,
			within: 4 * time.Second, end: Exited, code: 0, stdout: "{}", pgidFile: pg("nostdin"),
		},
		{
			name: "a hook that reads the whole 5 MiB payload gets every byte",
			argv: sh("wc -c"), stdin: bigPayload, timeout: 10 * time.Second,
			within: 4 * time.Second, end: Exited, code: 0, stdout: strconv.Itoa(5 << 20),
		},
		{
			name: "a program that is not executable fails to start",
			argv: []string{notExec}, timeout: time.Second,
			within: time.Second, end: StartFailed, code: -1, errIs: ErrNotExecutable,
		},
		{
			name: "a program that does not exist fails to start",
			argv: []string{filepath.Join(dir, "missing")}, timeout: time.Second,
			within: time.Second, end: StartFailed, code: -1, errIs: ErrNotFound,
		},
		{
			name: "a program not in PATH fails to start",
			argv: []string{"noora-hooks-no-such-program"}, timeout: time.Second,
			within: time.Second, end: StartFailed, code: -1, errIs: ErrNotFound,
		},
		{
			name: "an exit status is reported as such",
			argv: sh("echo oops >&2; exit 3"), timeout: 10 * time.Second,
			within: 4 * time.Second, end: Exited, code: 3,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			o := Run(context.Background(), Command{
				Argv: tt.argv, Env: []string{"PATH=/usr/bin:/bin"}, Dir: dir,
				Stdin: tt.stdin, Timeout: tt.timeout,
			})
			if took := time.Since(start); took > tt.within {
				t.Errorf("took %v, want under %v", took, tt.within)
			}
			if o.End != tt.end || o.Code != tt.code {
				t.Errorf("end %v code %d, want end %v code %d (err %v, stderr %q)", o.End, o.Code, tt.end, tt.code, o.Err, o.Stderr)
			}
			if tt.errIs != nil && !errors.Is(o.Err, tt.errIs) {
				t.Errorf("err %v, want %v", o.Err, tt.errIs)
			}
			if !strings.HasPrefix(strings.TrimSpace(string(o.Stdout)), tt.stdout) {
				t.Errorf("stdout %.80q, want prefix %q", o.Stdout, tt.stdout)
			}
			if tt.pgidFile != "" {
				groupGone(t, tt.pgidFile)
			}
			if tt.check != nil {
				tt.check(t, o)
			}
		})
	}
}

func TestFloodKeepsMemoryBounded(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	o := Run(context.Background(), Command{Argv: sh("head -c 209715200 /dev/zero"), Env: []string{"PATH=/usr/bin:/bin"}, Timeout: time.Minute})
	runtime.ReadMemStats(&after)
	if o.End != Exited || !o.StdoutTruncated {
		t.Fatalf("end %v truncated %v", o.End, o.StdoutTruncated)
	}
	// 200 MiB went through; what was allocated must stay near the 1 MiB kept.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
		t.Errorf("allocated %d MiB while reading a 200 MiB flood; want under 16 MiB", alloc>>20)
	}
}

func TestCancelKillsTheGroup(t *testing.T) {
	dir := t.TempDir()
	pgid := filepath.Join(dir, "pgid")
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(300 * time.Millisecond); cancel() }()
	start := time.Now()
	o := Run(ctx, Command{Argv: sh("echo $$ > " + pgid + "; sleep 30"), Env: []string{"PATH=/usr/bin:/bin"}})
	if took := time.Since(start); took > 4*time.Second {
		t.Errorf("took %v after cancel", took)
	}
	if o.End != Exited || o.Code != -1 {
		t.Errorf("end %v code %d, want a killed process", o.End, o.Code)
	}
	groupGone(t, pgid)
}

func TestBoundedWriterKeepsAPrefix(t *testing.T) {
	b := &Bounded{Limit: 5}
	for _, s := range []string{"ab", "cdef", "gh"} {
		if n, err := b.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", s, n, err)
		}
	}
	if string(b.Bytes()) != "abcde" || !b.Truncated() {
		t.Errorf("kept %q truncated=%v", b.Bytes(), b.Truncated())
	}
}
