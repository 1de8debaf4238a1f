// Package plugins runs Noora plugins out of process (SPEC §10): each plugin
// directory gets a child process, a Python plugin through the host embedded
// in the binary, any other program through `command:` in plugin.yaml, and
// both speak the line-delimited JSON protocol of package wire. The Manager
// keeps those processes, hands their callbacks to the dispatcher as hooks
// (plugins answer before shell hooks) and renders their system prompt
// sections.
//
// It must never let a plugin take noora-hooks down: a callback that raises,
// hangs or whose process dies is logged and skipped, and its process starts
// again on the next event. Processes are started through runner only.
package plugins

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/noora-hooks/noora-hooks/internal/dispatch"
	"github.com/noora-hooks/noora-hooks/internal/runner"

	"github.com/noora-hooks/noora-hooks/internal/config"
	"github.com/noora-hooks/noora-hooks/protocol"
)

// Options configure a Manager.
type Options struct {
	Home string
	// ConfigPath is the config file the run reads: the Python host gives it
	// to plugins as the agent's config (ctx.get_config,
	// hermes_cli.config.load_config).
	ConfigPath string
	// Env is the environment plugin processes get (the caller's), to which
	// NOORA_HOME, NOORA_PLUGIN_NAME, NOORA_PLUGIN_DIR and
	// NOORA_PLUGIN_PROTOCOL are added.
	Env []string
	// Python runs Python plugins; "" means DefaultPython.
	Python string
	// CallbackTimeout bounds one callback or section (0: no limit).
	CallbackTimeout time.Duration
	// StartTimeout bounds a plugin's start, up to its hello (0: DefaultStartTimeout).
	StartTimeout time.Duration
	// RetryAfter is how long a plugin that failed to start is left alone
	// before the next try; 0 tries again on every event. A long-lived
	// `serve` sets it so that a broken plugin does not cost every event a start.
	RetryAfter time.Duration
	// Warn gets problems that belong to no single call: skipped plugin
	// directories, register() warnings, unknown events. It is called from
	// the goroutine that calls NewManager, Hooks, Sections or List, and from
	// the goroutine that runs a streaming callback whose plugin had to start
	// again.
	Warn func(msg string)
	// Log gets each line a plugin writes to stderr. It may be called from
	// several goroutines at once.
	Log func(plugin, line string)
}

// Manager owns the plugin processes of one noora-hooks run: in `exec` they
// live for one event, in `serve` they stay warm until Close.
type Manager struct {
	opts     Options
	plugins  []*Plugin
	problems []Problem
	slots    []*slot // one per plugin, same order
	warned   sync.Once
	// hostConfig is the config as the agent reads it, made once for the
	// Python host's init line (agenthost.go).
	hostConfig     sync.Once
	hostConfigJSON []byte
	hostConfigErr  string
	// closed: Close was called; no process starts any more (a streaming
	// callback still queued in serve after a reload must not start one that
	// nobody would stop).
	closed atomic.Bool
}

// errClosed is a start asked of a Manager after Close.
var errClosed = errors.New("its plugin manager was closed (the configuration was reloaded, or noora-hooks is stopping)")

// slot holds the process of one plugin.
type slot struct {
	mu   sync.Mutex
	proc *Process
	// known is the last process that said hello, read without mu: the
	// callbacks of a streaming event are taken from it while a start holds mu.
	known    atomic.Pointer[Process]
	err      error // the last start failure
	failedAt time.Time
}

// NewManager discovers the plugins under opts.Home. A directory that is not a
// valid plugin is skipped, and reported through opts.Warn with the first
// event (List reports it in its listing instead). No process starts before
// the first event.
func NewManager(opts Options) *Manager {
	if opts.Warn == nil {
		opts.Warn = func(string) {}
	}
	if opts.Python == "" {
		opts.Python = DefaultPython
	}
	m := &Manager{opts: opts}
	m.plugins, m.problems = Discover(opts.Home)
	for range m.plugins {
		m.slots = append(m.slots, &slot{})
	}
	return m
}

// Plugins returns the discovered plugins in load order.
func (m *Manager) Plugins() []*Plugin { return m.plugins }

// Problems returns the plugin directories that were skipped.
func (m *Manager) Problems() []Problem { return m.problems }

func (m *Manager) spec(p *Plugin) ProcessSpec {
	argv := p.Command
	if argv == nil {
		argv = HostArgv(m.opts.Python, "plugin", p.Dir, p.Name)
	}
	env := runner.Environ(m.opts.Env, "NOORA_HOOK_EVENT", "NOORA_PLUGIN_PROTOCOL",
		"NOORA_HOME="+m.opts.Home, AgentHomeVar+"="+m.opts.Home, "NOORA_PLUGIN_NAME="+p.Name, "NOORA_PLUGIN_DIR="+p.Dir)
	log := func(string) {}
	if m.opts.Log != nil {
		log = func(line string) { m.opts.Log(p.Name, line) }
	}
	spec := ProcessSpec{
		Name: p.Name, Argv: argv, Dir: p.Dir, Env: env,
		StartTimeout: m.opts.StartTimeout, Log: log,
	}
	if p.Command == nil {
		spec.Init = m.hostInit(p)
	}
	return spec
}

// started is the outcome of making sure one plugin runs.
type started struct {
	proc  *Process
	err   error
	fresh bool // started by this call: its register() warnings are news
}

// ensure makes sure every plugin has a running process, starting the missing
// ones in parallel, and reports, in plugin order, what is new about them.
func (m *Manager) ensure(ctx context.Context) []started {
	m.warned.Do(func() {
		for _, p := range m.problems {
			m.opts.Warn(p.String())
		}
	})
	out := make([]started, len(m.plugins))
	var wg sync.WaitGroup
	for i, p := range m.plugins {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = m.slots[i].ensure(ctx, m, p)
		}()
	}
	wg.Wait()
	m.withoutClashes(out) // clash.go
	for i, s := range out {
		if s.fresh && s.err == nil {
			m.announce(m.plugins[i], s.proc)
		}
	}
	return out
}

func (s *slot) ensure(ctx context.Context, m *Manager, p *Plugin) started {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc != nil {
		if s.proc.Alive() {
			return started{proc: s.proc}
		}
		s.proc.Stop() // reap the dead one before its successor starts
		s.proc = nil
	}
	if m.closed.Load() {
		return started{err: errClosed}
	}
	if s.err != nil && m.opts.RetryAfter > 0 && time.Since(s.failedAt) < m.opts.RetryAfter {
		return started{err: s.err}
	}
	proc, err := StartProcess(ctx, m.spec(p))
	if err != nil && ctx.Err() != nil {
		// Interrupted is not broken: the next event starts it again.
		return started{err: err}
	}
	if err != nil && p.Command == nil && errors.Is(err, runner.ErrNotFound) {
		err = fmt.Errorf("%w; Python plugins need python3 in PATH, or NOORA_PYTHON set to an interpreter", err)
	}
	if err != nil {
		s.err, s.failedAt = err, time.Now()
		return started{err: err, fresh: true}
	}
	s.proc, s.err = proc, nil
	s.known.Store(proc)
	return started{proc: proc, fresh: true}
}

// announce reports what a freshly started plugin said at registration.
func (m *Manager) announce(p *Plugin, proc *Process) {
	for _, w := range proc.Hello.Warnings {
		m.opts.Warn(fmt.Sprintf("plugin %q: %s", p.Name, w))
	}
	for _, h := range proc.Hello.Hooks {
		if _, ok := protocol.Lookup(h.Event); !ok {
			m.opts.Warn(fmt.Sprintf("plugin %q: registered a callback for unknown event %q, which never fires; %s", p.Name, h.Event, config.Suggest(h.Event)))
		}
	}
}

// Hooks implements dispatch.Source: the callbacks registered for call's event,
// plugin directories in alphabetical order, each plugin's callbacks in
// registration order (SPEC §3). A plugin that cannot start is one hook that
// fails with the reason.
func (m *Manager) Hooks(ctx context.Context, call dispatch.Call) []dispatch.Hook {
	if m == nil {
		return nil
	}
	if call.Event.Streaming() {
		return m.streamHooks(ctx, call)
	}
	procs := m.ensure(ctx)
	kwargs, _ := call.Kwargs.MarshalJSON() // encoded once for every callback
	var out []dispatch.Hook
	for i, p := range m.plugins {
		s := procs[i]
		if s.err != nil {
			out = append(out, failed{
				info: dispatch.HookInfo{Source: "plugin", Name: p.Name},
				msg:  fmt.Sprintf("plugin %q cannot run: %v", p.Name, s.err),
			})
			continue
		}
		index := 0
		var prev <-chan struct{}
		for _, h := range s.proc.Hello.Hooks {
			if h.Event != call.Event.Name {
				continue
			}
			done := make(chan struct{})
			out = append(out, &callbackHook{
				m: m, plugin: p, proc: s.proc, event: h.Event, index: index,
				callback: h.Callback, kwargs: kwargs, after: prev, done: done,
			})
			prev = done
			index++
		}
	}
	return out
}

// Close stops every plugin process and waits until they are gone.
func (m *Manager) Close() {
	if m == nil {
		return
	}
	m.closed.Store(true)
	var wg sync.WaitGroup
	for _, s := range m.slots {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.proc != nil {
				s.proc.Stop()
				s.proc = nil
			}
		}()
	}
	wg.Wait()
}

// failed is a plugin that could not run for this event.
type failed struct {
	info dispatch.HookInfo
	msg  string
}

func (f failed) Describe() dispatch.HookInfo { return f.info }

func (f failed) Run(context.Context, dispatch.Call) dispatch.Result {
	return dispatch.Result{HookInfo: f.info, Status: dispatch.StatusError, Warnings: []dispatch.Warning{dispatch.Warn(f.msg)}}
}

// callbackHook is one registered callback of a running plugin.
type callbackHook struct {
	m        *Manager
	plugin   *Plugin
	proc     *Process
	event    string
	index    int // among the plugin's callbacks for event
	callback string
	kwargs   json.RawMessage
	// slot is the plugin's position: a streaming callback whose process has
	// ended starts it again there, in the worker that runs it.
	slot int
	// streaming: the callback is delivered through its own queue (the Noora
	// guide's streaming hooks): not chained to the plugin's other
	// callbacks, and its process started when it runs, not when it is queued.
	streaming bool
	// after is closed when the plugin's previous callback for this event
	// has finished, done when this one has: a plugin's callbacks run one
	// after the other in registration order, as they do in Noora, even
	// when the dispatcher runs hooks concurrently.
	after <-chan struct{}
	done  chan struct{}
	once  sync.Once
}

// Describe implements dispatch.Hook: "<plugin>:<callback>".
func (h *callbackHook) Describe() dispatch.HookInfo {
	return dispatch.HookInfo{Source: "plugin", Name: h.plugin.Name + ":" + h.name()}
}

func (h *callbackHook) name() string {
	if h.callback == "" {
		return fmt.Sprintf("%s#%d", h.event, h.index+1)
	}
	return h.callback
}

// Run implements dispatch.Hook: the callback's return value is read by the
// same rules as a shell hook's stdout (protocol.Read). A callback that raises,
// times out or whose process dies gives no answer and a warning.
func (h *callbackHook) Run(ctx context.Context, call dispatch.Call) dispatch.Result {
	if h.done != nil {
		defer h.once.Do(func() { close(h.done) })
	}
	res := dispatch.Result{HookInfo: h.Describe(), Status: dispatch.StatusOK}
	if h.after != nil {
		select {
		case <-h.after:
		case <-ctx.Done():
		}
	}
	start := time.Now()
	proc := h.proc
	if h.streaming && !proc.Alive() {
		var problem string
		if proc, problem = h.restart(ctx); proc == nil {
			res.Status = dispatch.StatusError
			res.Warnings = append(res.Warnings, dispatch.Warn(problem))
			return res
		}
	}
	m, err := proc.Invoke(ctx, h.m.opts.CallbackTimeout, h.event, h.index, h.callback, h.kwargs, call.Cwd)
	res.Duration = time.Since(start)
	where := fmt.Sprintf("plugin %q: %s callback %s", h.plugin.Name, h.event, h.name())
	var cbErr *CallbackError
	switch {
	case err == nil:
		res.Answer = protocol.Read(h.event, m.Value)
		return res
	case errors.As(err, &cbErr):
		res.Status = dispatch.StatusError
		res.Warnings = append(res.Warnings, dispatch.Warn(fmt.Sprintf("%s raised %v; skipped", where, cbErr)))
	case errors.Is(err, ErrTimeout):
		res.Status = dispatch.StatusTimeout
		res.Warnings = append(res.Warnings, dispatch.Warn(fmt.Sprintf("%s %v; skipped, and the plugin's process was stopped (it starts again on the next event)", where, err)))
	case errors.Is(err, ErrNotRunning):
		res.Status = dispatch.StatusSkipped
		res.Warnings = append(res.Warnings, dispatch.Warn(where+" skipped: the plugin's process ended earlier in this event (it starts again on the next event)"))
	case errors.Is(err, ErrDied):
		res.Status = dispatch.StatusError
		res.Warnings = append(res.Warnings, dispatch.Warn(fmt.Sprintf("%s: %v; skipped (the plugin starts again on the next event)", where, err)))
	default:
		res.Status = dispatch.StatusError
		res.Warnings = append(res.Warnings, dispatch.Warn(fmt.Sprintf("%s: %v; skipped", where, err)))
	}
	return res
}
