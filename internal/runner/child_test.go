//go:build unix

package runner

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func shChild(t *testing.T, script string, c ChildCommand) *Child {
	t.Helper()
	c.Argv = []string{"/bin/sh", "-c", script}
	c.Env = []string{"PATH=" + os.Getenv("PATH")}
	ch, err := Start(c)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { ch.Terminate(); <-ch.Done() })
	return ch
}

func waitDone(t *testing.T, ch *Child) {
	t.Helper()
	select {
	case <-ch.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the child is still running after 10s")
	}
}

func TestChildAnswersLinesAndExitsWhenStdinCloses(t *testing.T) {
	ch := shChild(t, `while read -r l; do echo "got $l"; done; exit 3`, ChildCommand{})
	for _, want := range []string{"one", "two"} {
		if err := ch.Send([]byte(want+"\n"), time.Now().Add(5*time.Second)); err != nil {
			t.Fatalf("Send: %v", err)
		}
		line, err := ch.ReadLine()
		if err != nil || string(line) != "got "+want {
			t.Fatalf("ReadLine = %q, %v; want %q", line, err, "got "+want)
		}
	}
	ch.Stop(5 * time.Second)
	waitDone(t, ch)
	if got := ch.Exit(); got.Code != 3 {
		t.Errorf("Exit = %v, want status 3", got)
	}
	if _, err := ch.ReadLine(); err != io.EOF {
		t.Errorf("ReadLine after exit: %v, want EOF", err)
	}
}

func TestChildRunsInItsOwnProcessGroup(t *testing.T) {
	ch := shChild(t, `ps -o pgid= -p $$; read -r l`, ChildCommand{})
	line, err := ch.ReadLine()
	if err != nil {
		t.Fatal(err)
	}
	pgid, err := strconv.Atoi(strings.TrimSpace(string(line)))
	if err != nil {
		t.Skipf("ps gave %q", line)
	}
	if pgid != ch.Pid() {
		t.Errorf("process group %d, want the child's own (%d)", pgid, ch.Pid())
	}
}

func TestTerminateKillsTheWholeGroupEvenWhenTermIsIgnored(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "grandchild")
	ch := shChild(t, `trap '' TERM; sleep 60 & echo $! > `+pidFile+`; echo ready; wait`, ChildCommand{})
	if line, err := ch.ReadLine(); err != nil || string(line) != "ready" {
		t.Fatalf("ReadLine = %q, %v", line, err)
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := strconv.Atoi(strings.TrimSpace(string(data))); err != nil {
		t.Fatalf("grandchild pid %q", data)
	}
	ch.Terminate()
	waitDone(t, ch)
	// The killed grandchild may stay a zombie for a moment until init reaps it.
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(-ch.Pid(), 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("the process group %d is still alive 5s after Terminate", ch.Pid())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestStopTerminatesAChildThatIgnoresEndOfInput(t *testing.T) {
	ch := shChild(t, `exec sleep 60`, ChildCommand{})
	start := time.Now()
	ch.Stop(200 * time.Millisecond)
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("Stop took %v", took)
	}
	if got := ch.Exit(); got.Code != -1 || got.Signal != syscall.SIGTERM {
		t.Errorf("Exit = %v, want killed by SIGTERM", got)
	}
}

func TestALineOverTheLimitIsRefusedAndTheNextOneReads(t *testing.T) {
	ch := shChild(t, `echo 0123456789abcdef; echo short`, ChildCommand{LineLimit: 10})
	if _, err := ch.ReadLine(); !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("ReadLine: %v, want ErrLineTooLong", err)
	}
	if line, err := ch.ReadLine(); err != nil || string(line) != "short" {
		t.Fatalf("ReadLine = %q, %v; want short", line, err)
	}
}

func TestStderrIsDeliveredLineByLineCutToTheBoundAndItsTailKept(t *testing.T) {
	var mu sync.Mutex
	var lines []string
	long := strings.Repeat("x", StderrLineLimit+100)
	ch := shChild(t, `echo first >&2; echo `+long+` >&2; echo last >&2`, ChildCommand{Stderr: func(l string) {
		mu.Lock()
		lines = append(lines, l)
		mu.Unlock()
	}})
	waitDone(t, ch)
	mu.Lock()
	defer mu.Unlock()
	if len(lines) != 3 || lines[0] != "first" || len(lines[1]) != StderrLineLimit || lines[2] != "last" {
		t.Fatalf("stderr lines: %d lines, first %q, last %q", len(lines), lines[0], lines[len(lines)-1])
	}
	if tail := ch.StderrTail(); !strings.HasSuffix(tail, "last\n") || len(tail) > stderrTailLimit {
		t.Errorf("StderrTail: %d bytes ending %q", len(tail), tail[max(0, len(tail)-10):])
	}
}

func TestSendFailsAtItsDeadlineWhenTheChildDoesNotRead(t *testing.T) {
	ch := shChild(t, `exec sleep 60`, ChildCommand{})
	big := bytes.Repeat([]byte("x"), 1<<20)
	start := time.Now()
	err := ch.Send(big, time.Now().Add(200*time.Millisecond))
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("Send: %v, want a deadline error", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("Send took %v", took)
	}
}

func TestStartReportsAMissingProgram(t *testing.T) {
	_, err := Start(ChildCommand{Argv: []string{"no-such-program-xyz"}, Env: []string{"PATH=/nonexistent"}})
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("Start: %v, want ErrNotFound", err)
	}
}

func TestLineReader(t *testing.T) {
	tests := []struct {
		name  string
		input string
		limit int
		want  []string // lines, "!" suffix when cut
	}{
		{"Lines come back without their newline", "a\nbb\n", 10, []string{"a", "bb"}},
		{"A carriage return before the newline is dropped", "a\r\nb\n", 10, []string{"a", "b"}},
		{"A last line without a newline still comes back", "a\nb", 10, []string{"a", "b"}},
		{"A line at the limit is whole", "12345\n", 5, []string{"12345"}},
		{"A line over the limit is cut and marked", "123456\nok\n", 5, []string{"12345!", "ok"}},
		{"A line far over the buffer is cut and the rest thrown away", strings.Repeat("y", 200000) + "\nz\n", 8, []string{"yyyyyyyy!", "z"}},
		{"Empty lines are lines", "\n\n", 4, []string{"", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lr := NewLineReader(strings.NewReader(tt.input), tt.limit)
			var got []string
			for {
				line, cut, err := lr.ReadLine()
				if err == nil || len(line) > 0 {
					s := string(line)
					if cut {
						s += "!"
					}
					got = append(got, s)
				}
				if err != nil {
					break
				}
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func FuzzLineReader(f *testing.F) {
	f.Add([]byte("a\nb\r\nc"), 3)
	f.Add([]byte(strings.Repeat("z", 70000)+"\n"), 1<<10)
	f.Add([]byte("\n\n\n"), 1)
	f.Fuzz(func(t *testing.T, data []byte, limit int) {
		if limit < 1 || limit > 1<<20 {
			return
		}
		lr := NewLineReader(bytes.NewReader(data), limit)
		total := 0
		for i := 0; i <= len(data)+1; i++ {
			line, _, err := lr.ReadLine()
			if len(line) > limit {
				t.Fatalf("a line of %d bytes, over the limit %d", len(line), limit)
			}
			total += len(line)
			if err != nil {
				if total > len(data) {
					t.Fatalf("read %d bytes out of %d", total, len(data))
				}
				return
			}
		}
		t.Fatal("ReadLine never reached the end")
	})
}

func TestDetachedChildOutlivesTheCallAndGetsItsStdin(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	logPath := filepath.Join(dir, "log")
	payload := strings.Repeat("p", 200<<10) // more than a pipe holds
	pid, err := StartDetached(context.Background(), Detached{
		Argv: []string{"/bin/sh", "-c", `cat > ` + out + `.tmp && mv ` + out + `.tmp ` + out + `; echo logged`},
		Env:  []string{"PATH=" + os.Getenv("PATH")},
		Dir:  dir, Stdin: []byte(payload), Log: logPath,
	})
	if err != nil {
		t.Fatalf("StartDetached: %v", err)
	}
	sid, err := getsid(pid)
	if err == nil && sid != pid {
		t.Errorf("the detached child is in session %d, want its own (%d)", sid, pid)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		data, err := os.ReadFile(out)
		if err == nil {
			if string(data) != payload {
				t.Fatalf("the child read %d bytes, want %d", len(data), len(payload))
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the detached child did not write its output within 10s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	for time.Now().Before(deadline) {
		if data, _ := os.ReadFile(logPath); strings.Contains(string(data), "logged") {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Error("the detached child's output did not reach its log")
}

func getsid(pid int) (int, error) {
	sid, _, errno := syscall.RawSyscall(syscall.SYS_GETSID, uintptr(pid), 0, 0)
	if errno != 0 {
		return 0, errno
	}
	return int(sid), nil
}
