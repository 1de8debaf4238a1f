package plugins

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/noora-hooks/noora-hooks/internal/dispatch"

	"github.com/noora-hooks/noora-hooks/protocol"
)

func streamCall(t *testing.T, event string, i int) dispatch.Call {
	t.Helper()
	ev, _ := protocol.Lookup(event)
	kw, err := protocol.ParseObject([]byte(fmt.Sprintf(`{"session_id":"s","delta":"%d","kind":"text"}`, i)))
	if err != nil {
		t.Fatal(err)
	}
	return dispatch.Call{Event: ev, Kwargs: kw, Cwd: t.TempDir()}
}

func linesOf(path string) []string {
	data, _ := os.ReadFile(path)
	return strings.Fields(string(data))
}

func TestASlowStreamingCallbackDelaysNoOtherPlugin(t *testing.T) {
	needPython(t)
	home := t.TempDir()
	out := filepath.Join(t.TempDir(), "fast.txt")
	python(t, home, "a_slow", `
import time
def on_delta(delta, **kw):
    time.sleep(1)
def register(ctx):
    ctx.register_hook("on_stream_delta", on_delta)
`)
	python(t, home, "b_fast", `
def on_delta(delta, **kw):
    with open(`+fmt.Sprintf("%q", out)+`, "a") as f:
        f.write(delta + "\n")
def register(ctx):
    ctx.register_hook("on_stream_delta", on_delta)
`)
	m, rec := newManager(t, home, Options{})
	f := &dispatch.Fanout{QueueSize: 16, Log: rec.warn}
	const events = 300
	for i := 0; i < events; i++ {
		call := streamCall(t, "on_stream_delta", i)
		if !f.Enqueue(call, m.Hooks(context.Background(), call)) {
			t.Fatal("enqueue refused")
		}
		if i%10 == 0 {
			time.Sleep(5 * time.Millisecond) // a stream's pace, which the fast plugin keeps up with
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for len(linesOf(out)) < events && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	stats := f.Close(100 * time.Millisecond)
	got := linesOf(out)
	var fast, slow dispatch.QueueStats
	for _, s := range stats {
		switch s.Hook {
		case "a_slow:on_delta":
			slow = s
		case "b_fast:on_delta":
			fast = s
		}
	}
	if uint64(len(got))+fast.Dropped != events {
		t.Errorf("fast plugin saw %d and dropped %d of %d", len(got), fast.Dropped, events)
	}
	for i := 1; i < len(got); i++ {
		var a, b int
		fmt.Sscan(got[i-1], &a)
		fmt.Sscan(got[i], &b)
		if b <= a {
			t.Fatalf("fast plugin saw %d after %d", b, a)
		}
	}
	if len(got) < events/2 {
		t.Errorf("fast plugin saw only %d of %d events while the other plugin was slow", len(got), events)
	}
	if slow.Dropped < events-16-40 {
		t.Errorf("slow plugin dropped %d, want most of %d: %+v", slow.Dropped, events, slow)
	}
}

func TestStreamingCallbacksOfOnePluginAreNotChained(t *testing.T) {
	needPython(t)
	home := t.TempDir()
	out := filepath.Join(t.TempDir(), "second.txt")
	python(t, home, "pair", `
def first(delta, **kw):
    pass
def second(delta, **kw):
    with open(`+fmt.Sprintf("%q", out)+`, "a") as f:
        f.write(delta + "\n")
def register(ctx):
    ctx.register_hook("on_stream_delta", first)
    ctx.register_hook("on_stream_delta", second)
`)
	m, _ := newManager(t, home, Options{})
	call := streamCall(t, "on_stream_delta", 7)
	hooks := m.Hooks(context.Background(), call)
	if len(hooks) != 2 {
		t.Fatalf("%d hooks", len(hooks))
	}
	if hooks[0].(dispatch.QueueKeyer).QueueKey("on_stream_delta") == hooks[1].(dispatch.QueueKeyer).QueueKey("on_stream_delta") {
		t.Fatal("the two callbacks share a queue")
	}
	// The first callback's event was dropped from its queue: it never runs.
	// Were the second chained behind it, it would wait until ctx ends.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	res := hooks[1].Run(ctx, call)
	if res.Status != dispatch.StatusOK || ctx.Err() != nil {
		t.Fatalf("second callback: %s %v (ctx: %v)", res.Status, res.Warnings, ctx.Err())
	}
	if got := linesOf(out); len(got) != 1 || got[0] != "7" {
		t.Errorf("the second callback saw %v", got)
	}
}

func TestAStreamingCallbackStartsItsPluginAgainWhenItRuns(t *testing.T) {
	needPython(t)
	home := t.TempDir()
	python(t, home, "pids", `
import os
def on_delta(**kw):
    with open(os.path.join(os.environ["NOORA_HOME"], "pids"), "a") as f:
        f.write(str(os.getpid()) + "\n")
def register(ctx):
    ctx.register_hook("on_stream_delta", on_delta)
`)
	m, _ := newManager(t, home, Options{})
	run := func(i int) dispatch.Result {
		call := streamCall(t, "on_stream_delta", i)
		hooks := m.Hooks(context.Background(), call)
		if len(hooks) != 1 {
			t.Fatalf("%d hooks", len(hooks))
		}
		return hooks[0].Run(context.Background(), call)
	}
	if res := run(0); res.Status != dispatch.StatusOK {
		t.Fatalf("first: %s %v", res.Status, res.Warnings)
	}
	dead := m.slots[0].proc
	_ = syscall.Kill(-dead.Pid(), syscall.SIGKILL)
	<-dead.child.Done()

	call := streamCall(t, "on_stream_delta", 1)
	hooks := m.Hooks(context.Background(), call)
	if m.slots[0].proc != dead {
		t.Fatal("Hooks started the plugin again on the caller's path")
	}
	if res := hooks[0].Run(context.Background(), call); res.Status != dispatch.StatusOK {
		t.Fatalf("after the kill: %s %v", res.Status, res.Warnings)
	}
	pids := linesOf(filepath.Join(home, "pids"))
	if len(pids) != 2 || pids[0] == pids[1] {
		t.Errorf("pids %v, want two processes", pids)
	}
}

func TestAClosedManagerStartsNoProcess(t *testing.T) {
	needPython(t)
	home := t.TempDir()
	python(t, home, "late", `
def on_delta(**kw):
    pass
def register(ctx):
    ctx.register_hook("on_stream_delta", on_delta)
`)
	m, _ := newManager(t, home, Options{})
	call := streamCall(t, "on_stream_delta", 0)
	hooks := m.Hooks(context.Background(), call) // queued in serve, then the config is reloaded
	m.Close()
	res := hooks[0].Run(context.Background(), call)
	if res.Status != dispatch.StatusError || !strings.Contains(strings.Join(dispatch.Strings(res.Warnings), ""), "its plugin manager was closed") {
		t.Fatalf("%s %v", res.Status, res.Warnings)
	}
	if m.slots[0].proc != nil {
		t.Error("a process was started after Close")
	}
}

func TestAStreamingEventNeverWaitsForAPluginToStart(t *testing.T) {
	needPython(t)
	home := t.TempDir()
	python(t, home, "late", `
import os
def on_delta(delta, **kw):
    with open(os.path.join(os.environ["NOORA_HOME"], "seen"), "a") as f:
        f.write(delta + "\n")
def register(ctx):
    ctx.register_hook("on_stream_delta", on_delta)
`)
	m, _ := newManager(t, home, Options{})
	s := m.slots[0]
	s.mu.Lock() // a start is under way (Warm, or another worker)
	call := streamCall(t, "on_stream_delta", 3)
	got := make(chan []dispatch.Hook)
	go func() { got <- m.Hooks(context.Background(), call) }()
	var hooks []dispatch.Hook
	select {
	case hooks = <-got:
	case <-time.After(5 * time.Second):
		s.mu.Unlock()
		t.Fatal("Hooks waited for the start")
	}
	s.mu.Unlock()
	if len(hooks) != 1 || hooks[0].Describe().Name != "late" {
		t.Fatalf("hooks %v, want one for the plugin that is starting", hooks)
	}
	if res := hooks[0].Run(context.Background(), call); res.Status != dispatch.StatusOK {
		t.Fatalf("%s %v", res.Status, res.Warnings)
	}
	if got := linesOf(filepath.Join(home, "seen")); len(got) != 1 || got[0] != "3" {
		t.Errorf("the callback saw %v", got)
	}
	// Once started, each callback has its own hook again.
	if hooks := m.Hooks(context.Background(), call); len(hooks) != 1 || hooks[0].Describe().Name != "late:on_delta" {
		t.Errorf("hooks after the start: %v", hooks)
	}
}

func TestAPluginThatFailedToStartIsTriedAgainByTheWorker(t *testing.T) {
	home := t.TempDir()
	script(t, home, "flaky", `
if [ ! -e "$NOORA_HOME/fixed" ]; then echo "not yet" >&2; exit 1; fi
echo '{"type":"hello","protocol":1,"hooks":[{"event":"on_stream_delta","callback":"cb"}]}'
while read -r line; do
  id=$(printf '%s' "$line" | sed 's/.*"id":\([0-9]*\).*/\1/')
  echo "{\"type\":\"result\",\"id\":$id,\"value\":null}"
done
`)
	m, _ := newManager(t, home, Options{})
	call := streamCall(t, "on_stream_delta", 0)
	first := m.Hooks(context.Background(), call)
	if len(first) != 1 || first[0].Run(context.Background(), call).Status != dispatch.StatusError {
		t.Fatalf("first event: %v", first)
	}
	os.WriteFile(filepath.Join(home, "fixed"), nil, 0o644)
	start := time.Now()
	hooks := m.Hooks(context.Background(), call)
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("Hooks took %v: it started the plugin on the caller's path", took)
	}
	if len(hooks) != 1 {
		t.Fatalf("%d hooks", len(hooks))
	}
	if res := hooks[0].Run(context.Background(), call); res.Status != dispatch.StatusOK {
		t.Fatalf("after the fix: %s %v", res.Status, res.Warnings)
	}
}
