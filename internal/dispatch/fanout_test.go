package dispatch

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/noora-hooks/noora-hooks/protocol"
)

// recorder remembers the seq kwarg of every call it gets, optionally slowly.
type recorder struct {
	name  string
	delay time.Duration
	mu    sync.Mutex
	seen  []int
}

func (r *recorder) Describe() HookInfo { return HookInfo{Source: "test", Name: r.name} }
func (r *recorder) Run(ctx context.Context, call Call) Result {
	select {
	case <-time.After(r.delay):
	case <-ctx.Done():
		return Result{HookInfo: r.Describe(), Status: StatusError}
	}
	raw, _ := call.Kwargs.Get("seq")
	var n int
	fmt.Sscan(string(raw), &n)
	r.mu.Lock()
	r.seen = append(r.seen, n)
	r.mu.Unlock()
	return Result{HookInfo: r.Describe(), Status: StatusOK}
}

func (r *recorder) got() []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]int(nil), r.seen...)
}

func deltaCall(t testing.TB, i int) Call {
	return Call{Event: mustEvent(t, "on_stream_delta"), Kwargs: protocol.Kwargs{{Key: "seq", Value: protocol.Raw(i)}}}
}

func TestAStalledObserverDropsOnlyItsOwnOldestEvents(t *testing.T) {
	fast := &recorder{name: "fast"}
	slow := &recorder{name: "slow", delay: time.Hour}
	f := &Fanout{QueueSize: 8}
	const events = 1000
	for i := 0; i < events; i++ {
		if !f.Enqueue(deltaCall(t, i), []Hook{fast, slow}) {
			t.Fatal("enqueue refused")
		}
		if i%100 == 0 {
			time.Sleep(time.Millisecond) // let the fast worker keep up, as a real stream would
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(fast.got()) < events && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	stats := f.Close(100 * time.Millisecond)
	got := fast.got()
	for i, n := range got {
		if i > 0 && n <= got[i-1] {
			t.Fatalf("fast hook saw %d after %d: out of order", n, got[i-1])
		}
	}
	var fastStats, slowStats QueueStats
	for _, s := range stats {
		switch s.Hook {
		case "fast":
			fastStats = s
		case "slow":
			slowStats = s
		}
	}
	if uint64(len(got))+fastStats.Dropped != events {
		t.Errorf("fast: saw %d, dropped %d, want %d in all", len(got), fastStats.Dropped, events)
	}
	if slowStats.Dropped < events-8 {
		t.Errorf("slow: dropped %d, want at least %d", slowStats.Dropped, events-8)
	}
	if len(slow.got()) != 0 {
		t.Errorf("slow hook finished %d events while stalled", len(slow.got()))
	}
}

func TestEveryEventArrivesInOrderWhenTheQueueKeepsUp(t *testing.T) {
	r := &recorder{name: "r"}
	f := &Fanout{QueueSize: 10000}
	for i := 0; i < 5000; i++ {
		f.Enqueue(deltaCall(t, i), []Hook{r})
	}
	stats := f.Close(10 * time.Second)
	got := r.got()
	if len(got) != 5000 || stats[0].Dropped != 0 || stats[0].Delivered != 5000 {
		t.Fatalf("saw %d events, stats %+v", len(got), stats)
	}
	for i, n := range got {
		if n != i {
			t.Fatalf("event %d was %d", i, n)
		}
	}
}

func TestCloseRefusesNewEventsAndCountsWhatItCouldNotDeliver(t *testing.T) {
	slow := &recorder{name: "slow", delay: time.Hour}
	f := &Fanout{QueueSize: 4}
	for i := 0; i < 3; i++ {
		f.Enqueue(deltaCall(t, i), []Hook{slow})
	}
	start := time.Now()
	stats := f.Close(200 * time.Millisecond)
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("Close took %v", took)
	}
	// One event was running (cancelled); two were queued.
	if stats[0].Dropped != 2 || stats[0].Pending != 0 {
		t.Errorf("stats %+v", stats[0])
	}
	if f.Enqueue(deltaCall(t, 9), []Hook{slow}) {
		t.Error("a closed fanout took an event")
	}
}

func BenchmarkFanoutEnqueue(b *testing.B) {
	r := &recorder{name: "r"}
	f := &Fanout{}
	call := deltaCall(b, 1)
	hooks := []Hook{r}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		f.Enqueue(call, hooks)
	}
	f.Close(time.Second)
}

// keyed is a recorder that shares one queue across events.
type keyed struct{ *recorder }

func (k keyed) QueueKey(string) string { return "one queue" }

func TestAHookThatChoosesItsQueueGetsEveryEventInFiringOrder(t *testing.T) {
	r := keyed{&recorder{name: "stream"}}
	plain := &recorder{name: "plain"}
	f := &Fanout{QueueSize: 1000}
	events := []string{"on_stream_start", "on_stream_delta", "on_stream_delta", "on_stream_end"}
	for i, ev := range events {
		f.Enqueue(Call{Event: mustEvent(t, ev), Kwargs: protocol.Kwargs{{Key: "seq", Value: protocol.Raw(i)}}}, []Hook{r, plain})
	}
	stats := f.Close(10 * time.Second)
	if got := r.got(); fmt.Sprint(got) != "[0 1 2 3]" {
		t.Errorf("the keyed hook saw %v", got)
	}
	queues := map[string]QueueStats{}
	for _, s := range stats {
		queues[s.Key] = s
	}
	if len(queues) != 4 {
		t.Fatalf("%d queues, want the keyed one and one per event for the plain hook: %+v", len(queues), stats)
	}
	if q := queues["one queue"]; fmt.Sprint(q.Events) != "[on_stream_start on_stream_delta on_stream_end]" || q.Delivered != 4 || q.Hook != "stream" {
		t.Errorf("keyed queue %+v", q)
	}
	if q := queues[Key("on_stream_delta", plain.Describe())]; fmt.Sprint(q.Events) != "[on_stream_delta]" || q.Delivered != 2 {
		t.Errorf("plain delta queue %+v", q)
	}
}

func TestDoneIsCalledOnceEveryHookRanOrDroppedTheCall(t *testing.T) {
	fast := &recorder{name: "fast"}
	stalled := &recorder{name: "stalled", delay: time.Hour}
	f := &Fanout{QueueSize: 2}
	var mu sync.Mutex
	done := map[int]int{}
	mark := func(i int) func() {
		return func() { mu.Lock(); done[i]++; mu.Unlock() }
	}
	const events = 20
	for i := 0; i < events; i++ {
		f.EnqueueThen(deltaCall(t, i), []Hook{fast, stalled}, mark(i))
	}
	// The stalled hook holds the event it runs (the first, unless it started
	// late) and, queued, the last two: every other event was dropped by it
	// and run by the fast one.
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		n := len(done)
		mu.Unlock()
		if n >= events-3 || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond) // anything else that would settle does
	mu.Lock()
	if len(done) < events-3 || len(done) > events-2 || done[events-1] != 0 || done[events-2] != 0 {
		t.Errorf("done before Close: %v; want all but the stalled hook's running one and its two queued ones", done)
	}
	mu.Unlock()
	f.Close(50 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	for i := 0; i < events; i++ {
		if done[i] != 1 {
			t.Errorf("event %d: done called %d times", i, done[i])
		}
	}
	called := false
	f.EnqueueThen(deltaCall(t, 99), []Hook{fast}, func() { called = true })
	if !called {
		t.Error("a closed fanout did not call done")
	}
	called = false
	(&Fanout{}).EnqueueThen(deltaCall(t, 1), nil, func() { called = true })
	if !called {
		t.Error("no hooks: done was not called")
	}
}

func TestRetireFreesTheQueuesOfHooksAReloadRemoved(t *testing.T) {
	kept, gone := &recorder{name: "kept"}, &recorder{name: "gone"}
	f := &Fanout{}
	defer f.Close(time.Second)
	for i := 0; i < 3; i++ {
		f.Enqueue(deltaCall(t, i), []Hook{kept, gone})
	}
	f.Retire(func(h HookInfo) bool { return h.Name == "kept" })
	deadline := time.Now().Add(30 * time.Second)
	for {
		stats := f.Stats()
		if len(stats) == 1 && stats[0].Hook == "kept" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("queues after Retire: %+v; want only kept's", stats)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if got := gone.got(); len(got) != 3 {
		t.Errorf("the retired hook got %v before its queue went; want every event already queued", got)
	}
	// A hook that comes back gets a queue again.
	f.Enqueue(deltaCall(t, 3), []Hook{gone})
	if n := len(f.Stats()); n != 2 {
		t.Errorf("%d queues after the hook came back, want 2", n)
	}
}
