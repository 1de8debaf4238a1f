// Package observe delivers the streaming family of observer events
// (on_stream_start, on_stream_delta, on_stream_end, on_interim_message) off
// the caller's path, as the Noora guide's "Streaming output hooks" promise:
// every hook (shell hook entry, plugin callback) gets its own bounded queue
// and one worker; a stalled hook fills only its own queue, which then drops
// its own oldest events, while every other hook keeps receiving. Reasoning
// deltas reach no hook unless plugins.stream_reasoning_deltas opts in, and
// are dropped before any queue.
//
// It is what `serve` answers 202 with. It must never make the caller wait for
// a hook, never hold more than each hook's queue bound, and never leave a
// process of a `stream: true` hook behind after Close.
package observe

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/noora-hooks/noora-hooks/internal/dispatch"
	"github.com/noora-hooks/noora-hooks/internal/shellhook"

	"github.com/noora-hooks/noora-hooks/internal/config"
	"github.com/noora-hooks/noora-hooks/protocol"
)

// Options configure Observers. They are read once: a server builds its
// Observers when it starts.
type Options struct {
	// QueueSize bounds each hook's queue (hooks_stream_queue_size); 0 means
	// config.DefaultStreamQueueSize.
	QueueSize int
	// IdleTimeout closes a stream process that got no line for that long
	// (hooks_stream_idle_timeout); 0 means config.DefaultStreamIdleTimeout.
	IdleTimeout time.Duration
	// Warn gets the warnings of hook runs and of stream processes. It is
	// called from the workers, several at once.
	Warn func(msg string)
	// StreamLog gets each line a stream process writes to stderr. It is
	// called from several goroutines at once.
	StreamLog func(command, line string)
}

// Observers is the streaming delivery of one server.
type Observers struct {
	fanout  *dispatch.Fanout
	streams *shellhook.Streams
}

// New returns Observers that start no worker before the first event.
func New(o Options) *Observers {
	if o.QueueSize <= 0 {
		o.QueueSize = config.DefaultStreamQueueSize
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = config.DefaultStreamIdleTimeout
	}
	warn := o.Warn
	if warn == nil {
		warn = func(string) {}
	}
	return &Observers{
		fanout:  &dispatch.Fanout{QueueSize: o.QueueSize, Log: warn},
		streams: &shellhook.Streams{IdleTimeout: o.IdleTimeout, Warn: warn, Log: o.StreamLog},
	}
}

// Streams keeps the processes of `stream: true` shell hooks: give it to the
// ShellSource of every configuration the server loads, so that those
// processes outlive a single event (and a reload).
func (o *Observers) Streams() *shellhook.Streams { return o.streams }

// Accepted says what became of one event.
type Accepted struct {
	// Queued is how many hooks' queues got the event.
	Queued int
	// Filtered: a reasoning delta without the opt-in; no hook sees it.
	Filtered bool
	// Closed: the Observers are closed; nothing was queued.
	Closed bool
}

// Accept puts call on the queue of every hook that sources yield for it and
// returns at once. reasoning is plugins.stream_reasoning_deltas of the
// configuration in force. done, when not nil, is called once every hook has
// run the call or dropped it (at once when none will), so that the caller
// can keep what the hooks belong to alive until then.
func (o *Observers) Accept(call dispatch.Call, sources []dispatch.Source, reasoning bool, done func()) Accepted {
	if !reasoning && protocol.ReasoningDelta(call.Event.Name, call.Kwargs) {
		if done != nil {
			done()
		}
		return Accepted{Filtered: true}
	}
	var hooks []dispatch.Hook
	for _, s := range sources {
		hooks = append(hooks, s.Hooks(context.Background(), call)...) // streaming hooks never wait for a start
	}
	if !o.fanout.EnqueueThen(call, hooks, done) {
		return Accepted{Closed: true}
	}
	return Accepted{Queued: len(hooks)}
}

// Stats reports every hook's queue, in the order the hooks were first seen.
func (o *Observers) Stats() []dispatch.QueueStats { return o.fanout.Stats() }

// Retire lets go of the queues of the hooks that keep refuses, once they are
// empty: serve calls it on a reload with the hooks of the new configuration.
func (o *Observers) Retire(keep func(dispatch.HookInfo) bool) { o.fanout.Retire(keep) }

// Summary is what Close did.
type Summary struct {
	Queues    []dispatch.QueueStats
	Delivered uint64
	Dropped   uint64
	// Streams is how many stream processes were still open and were closed.
	Streams int
}

// Close stops taking events, lets every queue drain for at most grace, then
// cancels the hooks still running and counts what is left as dropped; then it
// closes the stream processes (end of input, and their process groups killed
// when still there after grace). It returns once every worker and process is
// gone.
func (o *Observers) Close(grace time.Duration) Summary {
	start := time.Now()
	queues := o.fanout.Close(grace)
	left := grace - time.Since(start)
	if left < 100*time.Millisecond {
		left = 100 * time.Millisecond // a stream hook gets to read its end of input
	}
	s := Summary{Queues: queues, Streams: o.streams.Close(left)}
	for _, q := range queues {
		s.Delivered += q.Delivered
		s.Dropped += q.Dropped
	}
	return s
}

// String is the log line of a shutdown: the totals, then every hook that
// dropped events, most drops first.
func (s Summary) String() string {
	msg := fmt.Sprintf("observer queues: %d events delivered, %d dropped", s.Delivered, s.Dropped)
	var lossy []dispatch.QueueStats
	for _, q := range s.Queues {
		if q.Dropped > 0 {
			lossy = append(lossy, q)
		}
	}
	sort.SliceStable(lossy, func(i, j int) bool { return lossy[i].Dropped > lossy[j].Dropped })
	if len(lossy) > 0 {
		var parts []string
		for _, q := range lossy {
			parts = append(parts, fmt.Sprintf("%s %s %q dropped %d", strings.Join(q.Events, ","), q.Source, q.Hook, q.Dropped))
		}
		msg += " (" + strings.Join(parts, "; ") + ")"
	}
	if s.Streams > 0 {
		msg += fmt.Sprintf("; closed %d stream hook processes", s.Streams)
	}
	return msg
}
