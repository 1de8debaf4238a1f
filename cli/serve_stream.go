package cli

import (
	"github.com/noora-hooks/noora-hooks/internal/dispatch"
	"sync"
	"time"

	"github.com/noora-hooks/noora-hooks/internal/config"
	"github.com/noora-hooks/noora-hooks/internal/observe"
	"github.com/noora-hooks/noora-hooks/protocol"
)

// pluginRetryAfter is how long serve leaves a plugin that failed to start
// alone before it tries again: a broken plugin must not cost every event a
// start.
const pluginRetryAfter = 10 * time.Second

// serveStreams is the streaming delivery of one serve: its Observers live as
// long as serve does, across configuration reloads, so that stream processes
// and queues (and their counts of drops) survive a reload. They are built with
// the settings of the first configuration.
type serveStreams struct {
	logf func(format string, args ...any)

	mu       sync.Mutex
	obs      *observe.Observers
	settings config.StreamSettings
	warned   bool
}

// backend makes a freshly loaded Engine a server backend: its stream hooks
// share serve's processes, a broken plugin is retried only every
// pluginRetryAfter, and its plugins start at once, in the background, so that
// no host's event waits for them.
func (s *serveStreams) backend(e *Engine) serveBackend {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.obs == nil {
		s.settings = e.Config.Stream
		s.obs = observe.New(observe.Options{
			QueueSize:   e.Config.Stream.QueueSize(),
			IdleTimeout: e.Config.Stream.IdleTimeout(),
			Warn:        func(msg string) { s.logf("warning: %s", msg) },
			StreamLog:   func(command, line string) { s.logf("stream hook %s: %s", command, line) },
		})
	} else if e.Config.Stream != s.settings && !s.warned {
		s.warned = true
		s.logf("warning: %s: hooks_stream_queue_size and hooks_stream_idle_timeout take effect when serve restarts", e.Paths.Config)
	}
	e.Streams = s.obs.Streams()
	e.PluginRetryAfter = pluginRetryAfter
	go e.Plugins().Warm()
	return serveBackend{Engine: e, obs: s.obs}
}

// close drains the queues for at most grace and logs what was delivered and
// what was dropped, when there was any streaming event.
func (s *serveStreams) close(grace time.Duration) {
	s.mu.Lock()
	obs := s.obs
	s.mu.Unlock()
	if obs == nil {
		return
	}
	if sum := obs.Close(grace); len(sum.Queues) > 0 || sum.Streams > 0 {
		s.logf("%s", sum)
	}
}

// Queue implements server.Queuer: a streaming event goes to its hooks'
// queues, by the configuration of this backend.
func (b serveBackend) Queue(event protocol.Event, kw protocol.Kwargs, cwd string, done func()) bool {
	return !b.Engine.Queue(b.obs, event, kw, cwd, done).Closed
}

// Queue hands a streaming event to obs, for the hooks of this Engine's
// sources, as Fire would fire it; done is called once they have all run or
// dropped it.
func (e *Engine) Queue(obs *observe.Observers, event protocol.Event, kw protocol.Kwargs, cwd string, done func()) observe.Accepted {
	e.dispatchOnce.Do(func() { e.dispatcher = e.Dispatcher() })
	call := dispatch.Call{
		Event:  event,
		Kwargs: protocol.WithTelemetry(kw),
		Cwd:    cwd,
		Home:   e.Paths.Home,
		Env:    e.env.Environ(),
	}
	return obs.Accept(call, e.dispatcher.Sources, e.Config.Plugins.StreamReasoningDeltas, done)
}
