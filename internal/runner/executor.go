//go:build unix

// Package runner runs hooks: one hardened executor through which every child
// process of noora-hooks is spawned, and the dispatcher that fires the hooks of
// an event concurrently and combines their answers in declaration order.
//
// It must never leave a process behind, never block on a child's output, never
// hold more of a child's output than the bounds below, and never know about a
// particular adapter (plugins, outbound, gateway hooks): adapters are Hooks.
package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Output bounds of SPEC §4. What is over is read and thrown away.
const (
	StdoutLimit = 1 << 20
	StderrLimit = 64 << 10
)

// Grace periods of SPEC §4: TERM, then KILL at most killGrace later; after the
// child is gone, its pipes get drainGrace to reach EOF before they are closed.
const (
	killGrace  = 1 * time.Second
	drainGrace = 500 * time.Millisecond
)

// Command is one child process to run.
type Command struct {
	Argv    []string // Argv[0] is looked up in PATH unless it holds a '/'
	Dir     string
	Env     []string
	Stdin   []byte
	Timeout time.Duration // 0: none
	// Limits on kept output; 0 means the defaults above.
	StdoutLimit, StderrLimit int
}

// End is how a run ended: the three kinds are never confused.
type End int

const (
	// Exited: the process ran and exited (Code says how).
	Exited End = iota
	// TimedOut: the timeout fired and the process group was killed.
	TimedOut
	// StartFailed: no process was started (Err says why).
	StartFailed
)

// Outcome is what happened to one child process.
type Outcome struct {
	End End
	// Code is the exit status; -1 when killed by a signal.
	Code   int
	Signal syscall.Signal // when Code is -1
	Err    error          // StartFailed: why; otherwise nil
	Stdout []byte
	Stderr []byte
	// StdoutTruncated / StderrTruncated: the child wrote more than was kept.
	StdoutTruncated, StderrTruncated bool
	Duration                         time.Duration
}

// ExitText says how a process ended, for people: "exited with status 3", or
// "was killed by signal 9 (killed)". Every kind of hook reports through it.
func ExitText(code int, sig syscall.Signal) string {
	if code == -1 && sig != 0 {
		return fmt.Sprintf("was killed by signal %d (%s)", int(sig), sig)
	}
	return fmt.Sprintf("exited with status %d", code)
}

// ExitText is how the process ended (End is Exited).
func (o Outcome) ExitText() string { return ExitText(o.Code, o.Signal) }

// StartError says why a program did not start. Err is ErrNotFound,
// ErrNotExecutable, or the system's error; errors.Is sees it.
type StartError struct {
	Program string
	Err     error
	Detail  string // what else is known: "not in PATH", the system's reason
}

func (e *StartError) Error() string {
	switch {
	case errors.Is(e.Err, ErrNotFound) && e.Detail != "":
		return fmt.Sprintf("%v: %s (%s)", e.Err, e.Program, e.Detail)
	case errors.Is(e.Err, ErrNotFound):
		return fmt.Sprintf("%v: %s", e.Err, e.Program)
	case errors.Is(e.Err, ErrNotExecutable) && e.Detail != "":
		return fmt.Sprintf("%v: %s: %s", e.Err, e.Program, e.Detail)
	case errors.Is(e.Err, ErrNotExecutable):
		return fmt.Sprintf("%v: %s", e.Err, e.Program)
	}
	return fmt.Sprintf("start %s: %v", e.Program, e.Err)
}

func (e *StartError) Unwrap() error { return e.Err }

// ErrNotExecutable and ErrNotFound classify start failures.
var (
	ErrNotFound      = errors.New("program not found")
	ErrNotExecutable = errors.New("program not executable")
)

// Run runs c to completion. It returns when the child has exited (or was killed
// after the timeout or ctx's end) and its process group is gone, at most about
// killGrace+drainGrace after the deadline even when a grandchild escaped the
// group and holds the pipes open.
func Run(ctx context.Context, c Command) Outcome {
	start := time.Now()
	out := run(ctx, c)
	out.Duration = time.Since(start)
	return out
}

func run(ctx context.Context, c Command) Outcome {
	stdoutLimit, stderrLimit := c.StdoutLimit, c.StderrLimit
	if stdoutLimit <= 0 {
		stdoutLimit = StdoutLimit
	}
	if stderrLimit <= 0 {
		stderrLimit = StderrLimit
	}

	runCtx, cancel := ctx, context.CancelFunc(func() {})
	if c.Timeout > 0 {
		runCtx, cancel = context.WithTimeout(ctx, c.Timeout)
	}
	defer cancel()

	p, err := spawn(runCtx, c.Argv, c.Dir, c.Env)
	if err != nil {
		return startFailed(err)
	}
	cmd, stdinW, stdoutR, stderrR := p.cmd, p.stdin, p.stdout, p.stderr

	stdout := &Bounded{Limit: stdoutLimit}
	stderr := &Bounded{Limit: stderrLimit}
	drained := make(chan struct{}, 3)
	go drain(stdout, stdoutR, drained)
	go drain(stderr, stderrR, drained)
	go func() {
		// A child that never reads its stdin gets EPIPE here once it exits
		// (Go ignores SIGPIPE on pipes that are not fd 1 or 2).
		_, _ = stdinW.Write(c.Stdin)
		stdinW.Close()
		drained <- struct{}{}
	}()

	killDone := make(chan struct{})
	go escalate(runCtx, cmd.Process.Pid, killDone)

	waitErr := cmd.Wait()
	close(killDone)
	timedOut := runCtx.Err() != nil && ctx.Err() == nil
	// No hook leaves a process behind (SPEC §4): what the leader left in its
	// group dies with it, and so does what escaped the group (reap.go).
	_ = signalGroup(cmd.Process.Pid, syscall.SIGKILL)
	untrack(cmd.Process.Pid)

	// Grandchildren that left the group may still hold the pipes: give them a
	// moment, then stop reading.
	deadline := time.Now().Add(drainGrace)
	_ = stdoutR.SetReadDeadline(deadline)
	_ = stderrR.SetReadDeadline(deadline)
	_ = stdinW.SetWriteDeadline(deadline)
	for i := 0; i < 3; i++ {
		<-drained
	}
	closeAll(stdoutR, stderrR)

	out := Outcome{
		Stdout: stdout.Bytes(), StdoutTruncated: stdout.Truncated(),
		Stderr: stderr.Bytes(), StderrTruncated: stderr.Truncated(),
	}
	switch {
	case timedOut:
		out.End, out.Code = TimedOut, -1
	default:
		out.End = Exited
		out.Code = cmd.ProcessState.ExitCode()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			out.Signal = ws.Signal()
		}
		if waitErr != nil && out.Code == 0 && ctx.Err() != nil {
			out.Code = -1
		}
	}
	return out
}

// spawned is a started child and our ends of its three pipes.
type spawned struct {
	cmd            *exec.Cmd
	stdin          *os.File // write end
	stdout, stderr *os.File // read ends
}

// spawn starts argv the one hardened way (STYLE: the one place that spawns
// processes): its own process group, a Cancel that signals the group, a
// WaitDelay, explicit Dir and Env, and pipes of our own rather than exec's
// copying goroutines, so Wait returns as soon as the child exits and the
// caller decides how long to wait for leftovers. ctx's end sends SIGTERM to
// the group; pair it with escalate for the SIGKILL.
func spawn(ctx context.Context, argv []string, dir string, env []string) (*spawned, error) {
	if len(argv) == 0 || argv[0] == "" {
		return nil, fmt.Errorf("%w: empty command", ErrNotFound)
	}
	path, err := lookPath(argv[0], env)
	if err != nil {
		return nil, err
	}
	stdinR, stdinW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("create stdin pipe: %w", err)
	}
	stdoutR, stdoutW, err := os.Pipe()
	if err != nil {
		closeAll(stdinR, stdinW)
		return nil, fmt.Errorf("create stdout pipe: %w", err)
	}
	stderrR, stderrW, err := os.Pipe()
	if err != nil {
		closeAll(stdinR, stdinW, stdoutR, stdoutW)
		return nil, fmt.Errorf("create stderr pipe: %w", err)
	}
	cmd := exec.CommandContext(ctx, path)
	cmd.Args = argv
	cmd.Dir = dir
	cmd.Env = env
	if cmd.Env == nil {
		cmd.Env = []string{} // explicit: never inherit by accident
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdinR, stdoutW, stderrW
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return signalGroup(cmd.Process.Pid, syscall.SIGTERM) }
	cmd.WaitDelay = killGrace // then exec kills the leader; escalate kills the group
	if err := startTracked(cmd.Start, func() int { return cmd.Process.Pid }); err != nil {
		closeAll(stdinR, stdinW, stdoutR, stdoutW, stderrR, stderrW)
		if errors.Is(err, os.ErrNotExist) {
			if why := ShebangProblem(path, env); why != nil {
				return nil, why
			}
		}
		return nil, classifyStart(argv[0], err)
	}
	// The child has its copies; ours would keep the pipes open forever.
	closeAll(stdinR, stdoutW, stderrW)
	return &spawned{cmd: cmd, stdin: stdinW, stdout: stdoutR, stderr: stderrR}, nil
}

// escalate turns ctx's end (which sent SIGTERM to the group) into SIGKILL for
// the whole group killGrace later, unless the child exits first (exited is
// closed). exec's own WaitDelay only kills the leader.
func escalate(ctx context.Context, pid int, exited <-chan struct{}) {
	select {
	case <-ctx.Done():
	case <-exited:
		return
	}
	select {
	case <-time.After(killGrace):
		_ = signalGroup(pid, syscall.SIGKILL)
	case <-exited:
	}
}

func startFailed(err error) Outcome {
	return Outcome{End: StartFailed, Code: -1, Err: err}
}

func closeAll(files ...*os.File) {
	for _, f := range files {
		f.Close()
	}
}

func drain(dst *Bounded, src *os.File, done chan<- struct{}) {
	_, _ = io.Copy(dst, src)
	done <- struct{}{}
}

// signalGroup signals the process group led by pid. A group that is already
// gone (ESRCH) counts as done.
func signalGroup(pid int, sig syscall.Signal) error {
	err := syscall.Kill(-pid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// lookPath resolves the program with the child's PATH, not ours.
func lookPath(prog string, env []string) (string, error) {
	if strings.Contains(prog, "/") {
		st, err := os.Stat(prog)
		switch {
		case err != nil:
			return "", fmt.Errorf("%w: %s", ErrNotFound, prog)
		case st.IsDir() || st.Mode()&0o111 == 0:
			return "", fmt.Errorf("%w: %s", ErrNotExecutable, prog)
		}
		return prog, nil
	}
	pathEnv := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			pathEnv = v
		}
	}
	var notExec string
	for _, dir := range filepath.SplitList(pathEnv) {
		if dir == "" {
			dir = "."
		}
		candidate := dir + string(filepath.Separator) + prog // keeps "./" so exec does not search again
		st, err := os.Stat(candidate)
		if err != nil || st.IsDir() {
			continue
		}
		if st.Mode()&0o111 == 0 {
			if notExec == "" {
				notExec = candidate
			}
			continue
		}
		return candidate, nil
	}
	if notExec != "" {
		return "", &StartError{Program: notExec, Err: ErrNotExecutable}
	}
	return "", &StartError{Program: prog, Err: ErrNotFound, Detail: "not in PATH"}
}

func classifyStart(prog string, err error) error {
	var se *StartError
	switch {
	case errors.As(err, &se):
		return se
	case errors.Is(err, os.ErrNotExist):
		return &StartError{Program: prog, Err: ErrNotFound}
	case errors.Is(err, os.ErrPermission), errors.Is(err, syscall.ENOEXEC):
		return &StartError{Program: prog, Err: ErrNotExecutable, Detail: err.Error()}
	}
	return &StartError{Program: prog, Err: err}
}

// Bounded is an io.Writer that keeps the first Limit bytes written and counts
// the rest. It never fails and never blocks, so a child flooding its output is
// read at full speed and never stalls on a full pipe.
type Bounded struct {
	Limit int
	buf   []byte
	total int64
}

// Write keeps what fits and drops the rest.
func (b *Bounded) Write(p []byte) (int, error) {
	b.total += int64(len(p))
	if room := b.Limit - len(b.buf); room > 0 {
		if len(p) > room {
			b.buf = append(b.buf, p[:room]...)
		} else {
			b.buf = append(b.buf, p...)
		}
	}
	return len(p), nil
}

// Bytes returns what was kept.
func (b *Bounded) Bytes() []byte { return b.buf }

// Truncated reports whether more was written than kept.
func (b *Bounded) Truncated() bool { return b.total > int64(len(b.buf)) }

// Detached is a long-lived background process of noora-hooks that must outlive
// the process that starts it, such as the outbound sender.
type Detached struct {
	Argv []string // Argv[0] is looked up in Env's PATH unless it holds a '/'
	Dir  string
	Env  []string
	// Stdin is what the child reads, given through an unlinked temporary
	// file so that the caller never waits for the child to read it; nil
	// means the null device.
	Stdin []byte
	// Log receives stdout and stderr, appended; it is created with mode 0600.
	// Empty discards them.
	Log string
	// ExtraFiles become fds 3, 4, ... in the child (a held lock, for instance).
	ExtraFiles []*os.File
}

// StartDetached starts d and returns its pid without waiting for it. The child
// gets the same hardening as Run's: explicit Env and Dir, stdin from
// /dev/null, and a session of its own (so its own process group, and no
// controlling terminal: a Ctrl-C meant for the caller does not reach it). When
// ctx ends while we still live, the whole group gets TERM, then KILL. While we
// live, the child is reaped when it exits.
func StartDetached(ctx context.Context, d Detached) (int, error) {
	if len(d.Argv) == 0 || d.Argv[0] == "" {
		return 0, fmt.Errorf("%w: empty command", ErrNotFound)
	}
	path, err := lookPath(d.Argv[0], d.Env)
	if err != nil {
		return 0, err
	}
	logPath, flags, mode := d.Log, os.O_WRONLY|os.O_APPEND|os.O_CREATE, os.FileMode(0o600)
	if logPath == "" {
		logPath, flags, mode = os.DevNull, os.O_WRONLY, 0
	}
	log, err := os.OpenFile(logPath, flags, mode)
	if err != nil {
		return 0, fmt.Errorf("open log of %s: %w", d.Argv[0], err)
	}
	defer log.Close() // the child has its own copy
	var stdin *os.File
	if d.Stdin != nil {
		if stdin, err = os.CreateTemp("", "noora-hooks-stdin-*"); err != nil {
			return 0, fmt.Errorf("detach %s: %w", d.Argv[0], err)
		}
		defer stdin.Close()
		// Unlinked at once: the open descriptor keeps the data for the child only.
		os.Remove(stdin.Name())
		if _, err := stdin.Write(d.Stdin); err != nil {
			return 0, fmt.Errorf("detach %s: write stdin: %w", d.Argv[0], err)
		}
		if _, err := stdin.Seek(0, io.SeekStart); err != nil {
			return 0, fmt.Errorf("detach %s: %w", d.Argv[0], err)
		}
	}
	cmd := exec.CommandContext(ctx, path)
	cmd.Args = d.Argv
	cmd.Dir = d.Dir
	cmd.Env = d.Env
	if cmd.Env == nil {
		cmd.Env = []string{} // explicit: never inherit by accident
	}
	if stdin != nil {
		cmd.Stdin = stdin
	} // else os/exec gives the null device
	cmd.Stdout, cmd.Stderr = log, log
	cmd.ExtraFiles = d.ExtraFiles
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Cancel = func() error { return signalGroup(cmd.Process.Pid, syscall.SIGTERM) }
	cmd.WaitDelay = killGrace
	if err := startTracked(cmd.Start, func() int { return cmd.Process.Pid }); err != nil {
		return 0, classifyStart(d.Argv[0], err)
	}
	pid := cmd.Process.Pid
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait() // reap it if we live longer than it does (serve)
		untrack(pid)
		close(exited)
	}()
	go escalate(ctx, pid, exited) // TERM came from Cancel; KILL follows
	return pid, nil
}
