package dispatch

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// inSequence is a hook of a sequence that records how many of its sequence
// run at once, and in which order they started.
type inSequence struct {
	name, seq string
	running   *atomic.Int32
	most      *atomic.Int32
	mu        *sync.Mutex
	order     *[]string
}

func (h inSequence) Sequence() string   { return h.seq }
func (h inSequence) Describe() HookInfo { return HookInfo{Source: "test", Name: h.name} }
func (h inSequence) Run(ctx context.Context, _ Call) Result {
	n := h.running.Add(1)
	for m := h.most.Load(); n > m && !h.most.CompareAndSwap(m, n); m = h.most.Load() {
	}
	h.mu.Lock()
	*h.order = append(*h.order, h.name)
	h.mu.Unlock()
	time.Sleep(20 * time.Millisecond) // long enough for another to overlap, were it allowed
	h.running.Add(-1)
	return Result{HookInfo: h.Describe(), Status: StatusOK}
}

// together waits until all of its group have started: it returns only if
// they run at the same time (bounded, so a failure cannot hang).
type together struct {
	name  string
	group *sync.WaitGroup
	met   *atomic.Bool
}

func (h together) Describe() HookInfo { return HookInfo{Source: "test", Name: h.name} }
func (h together) Run(ctx context.Context, _ Call) Result {
	h.group.Done()
	done := make(chan struct{})
	go func() { h.group.Wait(); close(done) }()
	select {
	case <-done:
		h.met.Store(true)
	case <-time.After(30 * time.Second):
	}
	return Result{HookInfo: h.Describe(), Status: StatusOK}
}

func TestTheHooksOfASequenceRunOneAtATimeInOrderAndTheOthersConcurrently(t *testing.T) {
	var running, most atomic.Int32
	var mu sync.Mutex
	var order []string
	seq := func(name string) Hook {
		return inSequence{name: name, seq: "s", running: &running, most: &most, mu: &mu, order: &order}
	}
	var group sync.WaitGroup
	group.Add(2)
	var met atomic.Bool
	hooks := []Hook{seq("a"), together{"x", &group, &met}, seq("b"), together{"y", &group, &met}, seq("c")}
	results := RunAll(context.Background(), Call{Event: mustEvent(t, "on_session_start")}, hooks, 8)
	if m := most.Load(); m != 1 {
		t.Errorf("%d hooks of one sequence ran at once, want 1", m)
	}
	if got := order; len(got) != 3 || got[0] != "a" || got[1] != "b" || got[2] != "c" {
		t.Errorf("the sequence ran in the order %v, want [a b c]", got)
	}
	if !met.Load() {
		t.Error("the hooks outside the sequence did not run at the same time")
	}
	for i, want := range []string{"a", "x", "b", "y", "c"} {
		if results[i].Name != want {
			t.Errorf("result %d is %s, want %s: results keep declaration order", i, results[i].Name, want)
		}
	}
}
