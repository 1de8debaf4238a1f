package engine

import (
	"context"
	"sync"
	"time"

	"github.com/noora-hooks/noora-hooks/internal/config"
	"github.com/noora-hooks/noora-hooks/internal/dispatch"
	"github.com/noora-hooks/noora-hooks/internal/observe"
	"github.com/noora-hooks/noora-hooks/internal/server"
	"github.com/noora-hooks/noora-hooks/protocol"
)

// pluginRetryAfter is how long serve leaves a plugin that failed to start
// alone before it tries again: a broken plugin must not cost every event a
// start.
const pluginRetryAfter = 10 * time.Second

// Serving is what one serve keeps across configuration reloads: the
// streaming delivery (observe.Observers), so that stream processes and queues
// (and their counts of drops) survive a reload. They are built with the
// settings of the first configuration.
type Serving struct {
	// Logf writes one line of serve's log.
	Logf func(format string, args ...any)

	mu       sync.Mutex
	obs      *observe.Observers
	settings config.StreamSettings
	warned   bool
}

// Load loads the home as opts say and makes it a server backend: its stream
// hooks share serve's processes, a broken plugin is retried only every
// pluginRetryAfter, and its plugins start at once, in the background, so that
// no host's event waits for them.
func (s *Serving) Load(opts Options) (server.Backend, error) {
	e, err := Load(opts)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.obs == nil {
		s.settings = e.Config.Stream
		s.obs = observe.New(observe.Options{
			QueueSize:   e.Config.Stream.QueueSize(),
			IdleTimeout: e.Config.Stream.IdleTimeout(),
			Warn:        func(msg string) { s.Logf("warning: %s", msg) },
			StreamLog:   func(command, line string) { s.Logf("stream hook %s: %s", command, line) },
		})
	} else {
		if e.Config.Stream != s.settings && !s.warned {
			s.warned = true
			s.Logf("warning: %s: hooks_stream_queue_size and hooks_stream_idle_timeout take effect when serve restarts", e.Paths.Config)
		}
		// The queues of shell hooks this configuration no longer has go once
		// they are empty; plugin callbacks are bounded by the plugins' code.
		commands := map[string]bool{}
		for _, h := range e.Config.ShellHooks {
			commands[h.Command] = true
		}
		s.obs.Retire(func(h dispatch.HookInfo) bool { return h.Source != "shell" || commands[h.Name] })
	}
	e.Streams = s.obs.Streams()
	e.PluginRetryAfter = pluginRetryAfter
	if m := e.Plugins(); m != nil {
		go m.Warm(context.Background())
	}
	return Backend{Engine: e, obs: s.obs}, nil
}

// Close drains the queues for at most grace and logs what was delivered and
// what was dropped, when there was any streaming event.
func (s *Serving) Close(grace time.Duration) {
	s.mu.Lock()
	obs := s.obs
	s.mu.Unlock()
	if obs == nil {
		return
	}
	if sum := obs.Close(grace); len(sum.Queues) > 0 || sum.Streams > 0 {
		s.Logf("%s", sum)
	}
}

// Backend is one configuration generation of serve: an Engine and serve's
// streaming delivery. It implements server.Backend, server.Queuer and
// io.Closer (the server closes a generation once it is replaced and idle).
type Backend struct {
	*Engine
	obs *observe.Observers
}

// Hooks implements server.Backend: the listing of GET /v1/hooks.
func (b Backend) Hooks() []byte { return b.Engine.Listing(b.obs.Stats()).JSON() }

// AcceptsHooks implements server.Backend.
func (b Backend) AcceptsHooks() bool { return b.Accept }

// Queue implements server.Queuer: a streaming event goes to its hooks'
// queues, by the configuration of this backend.
func (b Backend) Queue(event protocol.Event, kw protocol.Kwargs, cwd string, done func()) bool {
	return !b.Engine.Queue(b.obs, event, kw, cwd, done).Closed
}

// Queue hands a streaming event to obs, for the hooks of this Engine's
// sources, as Fire would fire it; done is called once they have all run or
// dropped it.
func (e *Engine) Queue(obs *observe.Observers, event protocol.Event, kw protocol.Kwargs, cwd string, done func()) observe.Accepted {
	return obs.Accept(e.Call(event, kw, cwd), e.Dispatcher().Sources, e.Config.Plugins.StreamReasoningDeltas, done)
}
