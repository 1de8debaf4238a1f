package dispatch

import (
	"context"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultQueueSize is how many events one observer's queue holds before it
// drops its oldest (the Noora guide's streaming hooks contract).
const DefaultQueueSize = 256

// Fanout delivers observer events off the caller's path: every hook gets its
// own bounded queue and its own worker, so a stalled hook fills only its own
// queue, which then drops its own oldest events, while every other hook keeps
// receiving. Events reach each hook in the order they were enqueued.
type Fanout struct {
	// QueueSize bounds each hook's queue; 0 means DefaultQueueSize.
	QueueSize int
	// Log receives the warnings of hook runs; nil discards them.
	Log func(warning string)

	mu     sync.Mutex
	queues map[string]*queue
	order  []string // keys, in first-seen order, for stable reports
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	closed bool
}

// QueueStats is one hook's queue, as reports show it.
type QueueStats struct {
	Key    string `json:"key"`
	Source string `json:"source"`
	Hook   string `json:"hook"`
	// Events are the events the queue has carried, in first-seen order: one,
	// unless the hook chose a queue of its own across events (QueueKeyer).
	Events  []string `json:"events"`
	Pending int      `json:"pending"`
	// Running is 1 while the hook runs an event, else 0: every event
	// enqueued is pending, running, delivered or dropped.
	Running   int    `json:"running"`
	Delivered uint64 `json:"delivered"`
	Dropped   uint64 `json:"dropped"`
}

// QueueKeyer is a Hook that chooses its queue. A hook whose events must
// reach it in the order they were fired, across events (a long-lived stream
// hook: start, deltas, end), returns the same key for all of them; other
// hooks get one queue per event (Key).
type QueueKeyer interface {
	QueueKey(event string) string
}

type job struct {
	hook Hook
	call Call
	t    *tracker // nil: nobody waits
}

// tracker calls done once every job of one Enqueue has run or been dropped.
type tracker struct {
	left atomic.Int32
	done func()
}

func (t *tracker) settle() {
	if t != nil && t.left.Add(-1) == 0 {
		t.done()
	}
}

type queue struct {
	info      HookInfo
	key       string
	events    []string
	buf       []job // ring buffer of capacity size
	head, n   int
	delivered uint64
	dropped   uint64
	running   bool
	// retired: the hook is gone from the configuration; the worker ends, and
	// the queue is forgotten, once it is empty (Retire).
	retired bool
	wake    chan struct{} // buffered 1: "there is work"
}

// Key identifies a hook's queue: the event, the source and the hook's name, so
// the same command on two events has two queues.
func Key(event string, info HookInfo) string {
	return event + "\x00" + info.Source + "\x00" + info.Name
}

func (f *Fanout) init() {
	if f.queues == nil {
		f.queues = map[string]*queue{}
		f.ctx, f.cancel = context.WithCancel(context.Background())
	}
}

// Enqueue puts call on the queue of each hook and returns at once. It reports
// false when the fanout is closed.
func (f *Fanout) Enqueue(call Call, hooks []Hook) bool {
	return f.EnqueueThen(call, hooks, nil)
}

// EnqueueThen is Enqueue, and calls done (when not nil) once every hook has
// run the call or dropped it: at once when there is no hook or the fanout is
// closed. It is how a server keeps what the hooks belong to (a config
// generation, its plugin processes) alive until they are done with it. done
// is called from a worker, or from Enqueue or Close, never with a lock held.
func (f *Fanout) EnqueueThen(call Call, hooks []Hook, done func()) bool {
	call = shareStdin(call)
	var t *tracker
	if done != nil {
		t = &tracker{done: done}
		t.left.Store(int32(len(hooks)) + 1) // +1: this call's own hold, settled below
	}
	var dropped []*tracker
	defer func() {
		for _, d := range dropped {
			d.settle()
		}
		t.settle()
	}()
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		if t != nil {
			t.left.Store(1)
		}
		return false
	}
	f.init()
	size := f.QueueSize
	if size <= 0 {
		size = DefaultQueueSize
	}
	for _, h := range hooks {
		info := h.Describe()
		var key string
		if k, ok := h.(QueueKeyer); ok {
			key = k.QueueKey(call.Event.Name)
		} else {
			key = Key(call.Event.Name, info)
		}
		q := f.queues[key]
		if q != nil && q.retired { // the hook came back before its queue emptied
			q.retired = false
		}
		if q == nil {
			q = &queue{info: info, key: key, buf: make([]job, size), wake: make(chan struct{}, 1)}
			f.queues[key] = q
			f.order = append(f.order, key)
			f.wg.Add(1)
			go f.work(q)
		}
		if !slices.Contains(q.events, call.Event.Name) {
			q.events = append(q.events, call.Event.Name)
		}
		if q.n == len(q.buf) { // full: the oldest event goes
			if old := q.buf[q.head].t; old != nil {
				dropped = append(dropped, old)
			}
			q.buf[q.head] = job{}
			q.head = (q.head + 1) % len(q.buf)
			q.n--
			q.dropped++
		}
		q.buf[(q.head+q.n)%len(q.buf)] = job{hook: h, call: call, t: t}
		q.n++
		select {
		case q.wake <- struct{}{}:
		default:
		}
	}
	return true
}

// next pops the oldest job of q, or reports false when q is empty.
func (f *Fanout) next(q *queue) (job, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if q.n == 0 {
		return job{}, false
	}
	j := q.buf[q.head]
	q.buf[q.head] = job{}
	q.head = (q.head + 1) % len(q.buf)
	q.n--
	q.running = true
	return j, true
}

func (f *Fanout) work(q *queue) {
	defer f.wg.Done()
	for {
		j, ok := f.next(q)
		if !ok {
			f.mu.Lock()
			closed, retired := f.closed, q.retired && q.n == 0
			if retired {
				f.forget(q)
			}
			f.mu.Unlock()
			if closed || retired {
				return
			}
			select {
			case <-q.wake:
			case <-f.ctx.Done():
			}
			continue
		}
		if f.ctx.Err() != nil { // Close gave up waiting: what is left is dropped
			f.mu.Lock()
			q.dropped++
			q.running = false
			f.mu.Unlock()
			j.t.settle()
			continue
		}
		res := j.hook.Run(f.ctx, j.call)
		f.mu.Lock()
		if res.NotDelivered { // count what reached the hook, not what was tried
			q.dropped++
		} else {
			q.delivered++
		}
		q.running = false
		f.mu.Unlock()
		j.t.settle()
		if f.Log != nil {
			for _, w := range res.Warnings {
				f.Log(w.String())
			}
		}
	}
}

// Retire lets go of the queues whose hook keep refuses (a reload removed it
// from the configuration): each worker finishes what its queue holds, then
// ends, and the queue leaves the stats. Without it, every edited command
// would keep a worker and a queue for as long as the fanout lives.
func (f *Fanout) Retire(keep func(HookInfo) bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, q := range f.queues {
		if keep(q.info) {
			continue
		}
		q.retired = true
		select {
		case q.wake <- struct{}{}:
		default:
		}
	}
}

// forget removes q, with f.mu held.
func (f *Fanout) forget(q *queue) {
	delete(f.queues, q.key)
	f.order = slices.DeleteFunc(f.order, func(k string) bool { return k == q.key })
}

// Stats reports every queue, in the order the hooks were first seen.
func (f *Fanout) Stats() []QueueStats {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]QueueStats, 0, len(f.order))
	for _, k := range f.order {
		q := f.queues[k]
		running := 0
		if q.running {
			running = 1
		}
		out = append(out, QueueStats{Key: k, Source: q.info.Source, Hook: q.info.Name, Events: slices.Clone(q.events), Pending: q.n, Running: running, Delivered: q.delivered, Dropped: q.dropped})
	}
	return out
}

// Close stops taking events and lets the workers drain their queues for at
// most grace; then the hooks still running are cancelled, and what is still
// queued is counted as dropped. It returns the final stats, sorted by key.
func (f *Fanout) Close(grace time.Duration) []QueueStats {
	f.mu.Lock()
	f.closed = true
	f.init()
	for _, q := range f.queues {
		select {
		case q.wake <- struct{}{}:
		default:
		}
	}
	f.mu.Unlock()

	done := make(chan struct{})
	go func() { f.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(grace):
		f.cancel()
		var dropped []*tracker
		f.mu.Lock()
		for _, q := range f.queues {
			q.dropped += uint64(q.n)
			for q.n > 0 {
				if t := q.buf[q.head].t; t != nil {
					dropped = append(dropped, t)
				}
				q.buf[q.head] = job{}
				q.head = (q.head + 1) % len(q.buf)
				q.n--
			}
		}
		f.mu.Unlock()
		for _, t := range dropped {
			t.settle()
		}
		<-done
	}
	f.cancel()
	stats := f.Stats()
	sort.Slice(stats, func(i, j int) bool { return stats[i].Key < stats[j].Key })
	return stats
}
