package plugins

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/noora-hooks/noora-hooks/internal/runner"
	"github.com/noora-hooks/noora-hooks/internal/shellhook"

	"github.com/noora-hooks/noora-hooks/plugins/wire"
	"github.com/noora-hooks/noora-hooks/protocol"
)

// Errors of one request to a plugin process, for callers that branch on them.
var (
	// ErrTimeout: the callback did not answer in time; the process was stopped.
	ErrTimeout = errors.New("timed out")
	// ErrDied: the process ended (or broke the protocol) before answering.
	ErrDied = errors.New("plugin process died")
	// ErrNotRunning: the process had already ended before the request.
	ErrNotRunning = errors.New("plugin process is not running")
)

// stopGrace is how long a process gets to exit on its own once its stdin is
// closed, before its process group is terminated.
const stopGrace = 2 * time.Second

// ProcessSpec says how to start one plugin process.
type ProcessSpec struct {
	Name         string // for messages
	Argv         []string
	Dir          string
	Env          []string
	StartTimeout time.Duration // for the hello; 0 means DefaultStartTimeout
	// Init, when set, is the first line written to the process's stdin,
	// before its hello (the embedded host's wire.Init).
	Init []byte
	// Log gets each line of the process's stderr; nil discards them.
	Log func(line string)
}

// DefaultStartTimeout bounds how long a plugin may take to send its hello.
const DefaultStartTimeout = 10 * time.Second

// Process is one running plugin process that has said hello. Requests to it
// are served one at a time, in the order they are made.
type Process struct {
	name  string
	child *runner.Child
	// Hello is what the plugin declared: its hooks and sections.
	Hello wire.Message
	log   func(string)

	callMu sync.Mutex // one request at a time
	nextID int64

	mu         sync.Mutex
	pending    map[int64]chan wire.Message
	broken     error // why the process was ended by us, if it was
	first      chan wire.Message
	readerDone chan struct{}
}

// StartProcess starts a plugin process and waits for its hello. The process
// is stopped again when it fails to say hello in time, says it failed, speaks
// another protocol version, or ctx ends first.
func StartProcess(ctx context.Context, s ProcessSpec) (*Process, error) {
	log := s.Log
	if log == nil {
		log = func(string) {}
	}
	env := runner.Environ(s.Env, fmt.Sprintf("NOORA_PLUGIN_PROTOCOL=%d", wire.Version))
	child, err := runner.Start(runner.ChildCommand{
		Argv: s.Argv, Dir: s.Dir, Env: env,
		LineLimit: wire.MaxMessage, Stderr: log,
	})
	if err != nil {
		return nil, fmt.Errorf("cannot start: %w", err)
	}
	p := &Process{
		name: s.Name, child: child, log: log,
		pending:    map[int64]chan wire.Message{},
		first:      make(chan wire.Message, 1),
		readerDone: make(chan struct{}),
	}
	go p.read()

	timeout := s.StartTimeout
	if timeout <= 0 {
		timeout = DefaultStartTimeout
	}
	if len(s.Init) > 0 {
		// A process that does not read it is caught below: it sends no
		// hello, or it exits.
		_ = child.Send(s.Init, time.Now().Add(timeout))
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case m := <-p.first:
		switch {
		case m.Type == wire.TypeFatal:
			p.Stop()
			return nil, errors.New(withWhere(m.Error, m.Where))
		case m.Protocol != wire.Version:
			p.Stop()
			return nil, fmt.Errorf("it speaks plugin protocol version %d, but this noora-hooks speaks version %d (docs/plugin-protocol.md); update the plugin or noora-hooks so that they match", m.Protocol, wire.Version)
		}
		p.Hello = m
		return p, nil
	case <-p.readerDone:
		err := p.deathReason("before saying hello")
		p.Stop()
		return nil, err
	case <-timer.C:
		p.fail(fmt.Errorf("sent no hello within %s", timeout))
		p.Stop()
		return nil, fmt.Errorf("sent no hello within %s; it was stopped", timeout)
	case <-ctx.Done():
		p.fail(fmt.Errorf("start interrupted: %w", ctx.Err()))
		p.Stop()
		return nil, fmt.Errorf("start interrupted before its hello: %w", ctx.Err())
	}
}

func withWhere(msg, where string) string {
	if where == "" {
		return msg
	}
	return msg + " (at " + where + ")"
}

// read delivers the process's messages until its stdout ends. Anything that
// breaks the protocol ends the process: a plugin that sends garbage cannot be
// trusted to answer the next request correctly.
func (p *Process) read() {
	defer close(p.readerDone)
	helloSeen := false
	for {
		line, err := p.child.ReadLine()
		if errors.Is(err, runner.ErrLineTooLong) {
			p.fail(fmt.Errorf("%w: a message is over the %d-byte limit", wire.ErrProtocol, wire.MaxMessage))
			continue // keep reading to the end, so that the process can exit
		}
		if err != nil {
			return
		}
		if len(bytes.TrimSpace(line)) == 0 || p.failed() {
			continue
		}
		m, err := wire.Parse(line)
		if err != nil {
			p.fail(err)
			continue
		}
		if !helloSeen {
			if m.Type != wire.TypeHello && m.Type != wire.TypeFatal {
				p.fail(fmt.Errorf("%w: the first message must be a hello, got %q", wire.ErrProtocol, m.Type))
				continue
			}
			helloSeen = true
			p.first <- m
			continue
		}
		switch m.Type {
		case wire.TypeResult, wire.TypeError:
			p.mu.Lock()
			ch, ok := p.pending[m.ID]
			p.mu.Unlock()
			if !ok {
				p.log(fmt.Sprintf("noora-hooks: ignored a %s for request %d, which is not waiting for one", m.Type, m.ID))
				continue
			}
			select {
			case ch <- m:
			default: // a second answer to the same request: the first one stands
				p.log(fmt.Sprintf("noora-hooks: ignored a second answer to request %d", m.ID))
			}
		case wire.TypeFatal:
			p.fail(fmt.Errorf("it gave up: %s", withWhere(m.Error, m.Where)))
		case wire.TypeHello:
			p.fail(fmt.Errorf("%w: a second hello", wire.ErrProtocol))
		}
	}
}

// fail records why the process is being ended (the first reason wins) and
// terminates it.
func (p *Process) fail(err error) {
	p.mu.Lock()
	if p.broken == nil {
		p.broken = err
	}
	p.mu.Unlock()
	p.child.Terminate()
}

func (p *Process) failed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.broken != nil
}

// Alive reports whether the process can take requests.
func (p *Process) Alive() bool {
	if p.failed() {
		return false
	}
	select {
	case <-p.readerDone:
		return false
	default:
		return true
	}
}

// Pid is the process id (and process group id) of the plugin process.
func (p *Process) Pid() int { return p.child.Pid() }

// Stop closes the process's stdin, which ends a well-behaved plugin, and
// terminates its process group if it is still there after a grace period.
func (p *Process) Stop() {
	p.child.Stop(stopGrace)
}

// releaseTimeout bounds the answer to a release, which the host gives
// without running plugin code: generous, for a busy machine.
const releaseTimeout = 10 * time.Second

// StopAfter is Stop with extra time to exit on its own: a gateway handler
// finishing its background work.
func (p *Process) StopAfter(extra time.Duration) {
	p.child.Stop(stopGrace + extra)
}

// Abandon closes the process's stdin and leaves it to exit on its own: a
// gateway handler whose background work noora-hooks does not wait for. The
// host bounds that work itself (its drain timeout), and nothing that
// outlives it stays in its process group.
func (p *Process) Abandon() {
	p.child.CloseStdin()
}

// Done is closed once the process has exited.
func (p *Process) Done() <-chan struct{} { return p.child.Done() }

// Release asks a gateway handler's host how much background work the
// handler left running; wait says whether noora-hooks will wait for it (if
// not, the host logs to logPath from now on).
func (p *Process) Release(ctx context.Context, logPath string, wait bool) (int, error) {
	m, err := p.request(ctx, releaseTimeout, "its release", func(id int64) []byte {
		return wire.Release(id, logPath, wait)
	})
	if err != nil {
		return 0, err
	}
	if m.Type == wire.TypeError {
		return 0, &CallbackError{Msg: m.Error, Where: m.Where}
	}
	return int(m.Value.Get("pending").Int()), nil
}

// deathReason explains why the process is gone: what we ended it for, or
// how it exited and the last line of its log.
func (p *Process) deathReason(when string) error {
	p.mu.Lock()
	broken := p.broken
	p.mu.Unlock()
	if broken != nil {
		return fmt.Errorf("%w %s: %v", ErrDied, when, broken)
	}
	// Its stdout is closed: the process is gone or about to be.
	select {
	case <-p.child.Done():
	case <-time.After(stopGrace):
		p.child.Terminate()
		<-p.child.Done()
		return fmt.Errorf("%w %s: it closed its stdout; it was stopped", ErrDied, when)
	}
	msg := "it " + p.child.Exit().String()
	if last := lastLine(p.child.StderrTail()); last != "" {
		msg += ": " + last
	}
	return fmt.Errorf("%w %s: %s", ErrDied, when, msg)
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return shellhook.Excerpt(strings.TrimSpace(lines[len(lines)-1]))
}

// request sends one request and waits for its answer, at most timeout (0:
// no limit) and never past ctx. A request that times out ends the process:
// it is still busy with the callback and cannot answer the next one.
func (p *Process) request(ctx context.Context, timeout time.Duration, what string, encode func(id int64) []byte) (wire.Message, error) {
	p.callMu.Lock()
	defer p.callMu.Unlock()
	if !p.Alive() {
		return wire.Message{}, ErrNotRunning
	}
	p.nextID++
	id := p.nextID
	reply := make(chan wire.Message, 1)
	p.mu.Lock()
	p.pending[id] = reply
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		delete(p.pending, id)
		p.mu.Unlock()
	}()
	stop := context.AfterFunc(ctx, p.child.Terminate)
	defer stop()

	var expired <-chan time.Time
	var deadline time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expired, deadline = t.C, time.Now().Add(timeout)
	}
	timedOut := func() (wire.Message, error) {
		p.fail(fmt.Errorf("%s timed out after %s", what, timeout))
		return wire.Message{}, fmt.Errorf("%w after %s", ErrTimeout, timeout)
	}
	if err := p.child.Send(encode(id), deadline); err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return timedOut()
		}
		// Most likely the process is gone: say why once its output has ended.
		select {
		case <-p.readerDone:
		case <-time.After(stopGrace):
			p.fail(fmt.Errorf("it stopped reading its stdin: %v", err))
			<-p.readerDone
		}
	}
	select {
	case m := <-reply:
		return m, nil
	case <-expired:
		return timedOut()
	case <-ctx.Done():
		return wire.Message{}, ctx.Err()
	case <-p.readerDone:
		select {
		case m := <-reply: // it answered, then exited
			return m, nil
		default:
		}
		return wire.Message{}, p.deathReason("while running " + what)
	}
}

// Invoke runs the index-th callback the plugin registered for event.
// A callback that raised gives a *CallbackError.
func (p *Process) Invoke(ctx context.Context, timeout time.Duration, event string, index int, callback string, kwargs json.RawMessage, cwd string) (wire.Message, error) {
	what := fmt.Sprintf("its %s callback %s", event, callback)
	m, err := p.request(ctx, timeout, what, func(id int64) []byte {
		return wire.Invoke(id, event, index, kwargs, cwd)
	})
	if err == nil && m.Type == wire.TypeError {
		return m, &CallbackError{Msg: m.Error, Where: m.Where}
	}
	return m, err
}

// Section asks the plugin for the text of the section registered under
// section, rendered for sessionInfo. A section that raised gives a
// *CallbackError.
func (p *Process) Section(ctx context.Context, timeout time.Duration, section string, sessionInfo protocol.Object) (wire.Message, error) {
	m, err := p.request(ctx, timeout, fmt.Sprintf("its section %s", section), func(id int64) []byte {
		return wire.Section(id, section, sessionInfo)
	})
	if err == nil && m.Type == wire.TypeError {
		return m, &CallbackError{Msg: m.Error, Where: m.Where}
	}
	return m, err
}

// CallbackError is a callback that raised (or a plugin that answered a
// request with an error).
type CallbackError struct {
	Msg, Where string
}

func (e *CallbackError) Error() string { return withWhere(e.Msg, e.Where) }
