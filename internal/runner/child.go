//go:build unix

package runner

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// StderrLineLimit bounds one line of a long-lived child's stderr (its log):
// longer lines are cut there and the rest of the line is thrown away.
const StderrLineLimit = 4 << 10

// stderrTailLimit bounds the end of a child's log kept for error messages.
const stderrTailLimit = 2 << 10

// ErrLineTooLong is a line of a child's stdout over the bound of its ChildCommand.
var ErrLineTooLong = errors.New("line too long")

// ChildCommand is a long-lived child process: a plugin process that answers
// requests on its stdin for as long as noora-hooks needs it. It gets the same
// hardening as Command: its own process group, a stop that signals the whole
// group (TERM, then KILL), explicit Env and Dir, bounded reading.
type ChildCommand struct {
	Argv []string // Argv[0] is looked up in Env's PATH unless it holds a '/'
	Dir  string
	Env  []string
	// LineLimit bounds one line read from stdout with ReadLine; 0 means
	// StdoutLimit (1 MiB).
	LineLimit int
	// Stderr, when set, gets the child's stderr line by line, each cut to
	// StderrLineLimit bytes. It is called from one goroutine.
	Stderr func(line string)
}

// Child is a running long-lived child. Send and ReadLine are each meant for
// one goroutine at a time; the other methods may be called from anywhere.
type Child struct {
	cmd    *exec.Cmd
	stdin  *os.File
	stdout *LineReader
	outR   *os.File
	cancel context.CancelFunc
	done   chan struct{}

	mu   sync.Mutex
	tail []byte // the end of stderr, at most stderrTailLimit bytes
	exit ChildExit
}

// ChildExit says how a child ended.
type ChildExit struct {
	Code   int            // -1 when killed by a signal
	Signal syscall.Signal // when Code is -1
}

func (e ChildExit) String() string { return ExitText(e.Code, e.Signal) }

// Start starts c and returns at once. The caller must eventually call Stop or
// Terminate: the child never outlives it by more than Stop's grace.
func Start(c ChildCommand) (*Child, error) {
	limit := c.LineLimit
	if limit <= 0 {
		limit = StdoutLimit
	}
	ctx, cancel := context.WithCancel(context.Background())
	p, err := spawn(ctx, c.Argv, c.Dir, c.Env)
	if err != nil {
		cancel()
		return nil, err
	}
	cmd, stdinW, stdoutR, stderrR := p.cmd, p.stdin, p.stdout, p.stderr

	ch := &Child{
		cmd: cmd, stdin: stdinW, outR: stdoutR,
		stdout: NewLineReader(stdoutR, limit),
		cancel: cancel, done: make(chan struct{}),
	}
	stderrDone := make(chan struct{})
	go func() {
		defer close(stderrDone)
		ch.readStderr(stderrR, c.Stderr)
	}()
	exited := make(chan struct{})
	go escalate(ctx, cmd.Process.Pid, exited)
	go func() {
		_ = cmd.Wait()
		close(exited)
		// Nothing the child left in its group survives it, nor what
		// escaped the group (reap.go).
		_ = signalGroup(cmd.Process.Pid, syscall.SIGKILL)
		untrack(cmd.Process.Pid)
		exit := ChildExit{Code: cmd.ProcessState.ExitCode()}
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			exit.Signal = ws.Signal()
		}
		// A grandchild that left the group may hold the pipes: give the
		// readers a moment, then make them return.
		deadline := time.Now().Add(drainGrace)
		_ = stdoutR.SetReadDeadline(deadline)
		_ = stderrR.SetReadDeadline(deadline)
		<-stderrDone
		stderrR.Close()
		stdinW.Close()
		cancel()
		ch.mu.Lock()
		ch.exit = exit
		ch.mu.Unlock()
		close(ch.done)
	}()
	return ch, nil
}

func (ch *Child) readStderr(r io.Reader, log func(string)) {
	lr := NewLineReader(r, StderrLineLimit)
	for {
		line, _, err := lr.ReadLine()
		if len(line) > 0 || err == nil {
			ch.mu.Lock()
			ch.tail = append(ch.tail, line...)
			ch.tail = append(ch.tail, '\n')
			if over := len(ch.tail) - stderrTailLimit; over > 0 {
				ch.tail = append(ch.tail[:0], ch.tail[over:]...)
			}
			ch.mu.Unlock()
			if log != nil {
				log(string(line))
			}
		}
		if err != nil {
			return
		}
	}
}

// Pid is the child's process id, which is also its process group id.
func (ch *Child) Pid() int { return ch.cmd.Process.Pid }

// Send writes p to the child's stdin. A child that does not read makes Send
// fail at deadline rather than block forever.
func (ch *Child) Send(p []byte, deadline time.Time) error {
	if err := ch.stdin.SetWriteDeadline(deadline); err != nil {
		return fmt.Errorf("write to child: %w", err)
	}
	_, err := ch.stdin.Write(p)
	return err
}

// ReadLine returns the next line of the child's stdout without its newline.
// A line over the limit is read to its end and thrown away, and ReadLine
// returns ErrLineTooLong. At the end of output it returns io.EOF.
func (ch *Child) ReadLine() ([]byte, error) {
	line, cut, err := ch.stdout.ReadLine()
	if cut {
		return nil, ErrLineTooLong
	}
	if err != nil && len(line) > 0 {
		return line, nil // the last line had no newline; EOF comes next time
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		err = io.EOF
	}
	return line, err
}

// CloseStdin closes the child's stdin: a well-behaved child exits.
func (ch *Child) CloseStdin() { ch.stdin.Close() }

// Terminate signals the process group: TERM, then KILL at most 1 s later.
// It does not wait; Done is closed once the child is gone.
func (ch *Child) Terminate() { ch.cancel() }

// Stop closes stdin, gives the child grace to exit on its own, then
// terminates its group, and returns once it is gone.
func (ch *Child) Stop(grace time.Duration) {
	ch.CloseStdin()
	select {
	case <-ch.done:
		return
	case <-time.After(grace):
	}
	ch.Terminate()
	<-ch.done
}

// Done is closed when the child has exited and its process group is gone.
func (ch *Child) Done() <-chan struct{} { return ch.done }

// Exit says how the child ended; valid once Done is closed.
func (ch *Child) Exit() ChildExit {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	return ch.exit
}

// StderrTail returns the last lines of the child's stderr (at most 2 KiB).
func (ch *Child) StderrTail() string {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	return string(ch.tail)
}

// LineReader reads newline-terminated lines of bounded length.
type LineReader struct {
	r     *bufio.Reader
	limit int
}

// NewLineReader reads lines of at most limit bytes (newline excluded) from r.
func NewLineReader(r io.Reader, limit int) *LineReader {
	size := 64 << 10
	if limit+1 < size {
		size = max(limit+1, 16)
	}
	return &LineReader{r: bufio.NewReaderSize(r, size), limit: limit}
}

// ReadLine returns the next line without its newline (and without a trailing
// carriage return). A line longer than the limit comes back cut to the limit
// with cut=true; the rest of it was read and thrown away. At the end of input
// err is io.EOF (or the read error), possibly with a last unterminated line.
func (l *LineReader) ReadLine() (line []byte, cut bool, err error) {
	for {
		chunk, err := l.r.ReadSlice('\n')
		full := err == nil
		if full {
			chunk = chunk[:len(chunk)-1]
		}
		if room := l.limit - len(line); room > 0 {
			if len(chunk) > room {
				line = append(line, chunk[:room]...)
				cut = true
			} else {
				line = append(line, chunk...)
			}
		} else if len(chunk) > 0 {
			cut = true
		}
		switch {
		case full:
			if !cut && len(line) > 0 && line[len(line)-1] == '\r' {
				line = line[:len(line)-1]
			}
			if line == nil {
				line = []byte{}
			}
			return line, cut, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return line, cut, err
		}
	}
}
