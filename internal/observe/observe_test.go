package observe

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/noora-hooks/noora-hooks/internal/dispatch"
	"github.com/noora-hooks/noora-hooks/internal/shellhook"

	"github.com/tidwall/gjson"

	"github.com/noora-hooks/noora-hooks/internal/config"
	"github.com/noora-hooks/noora-hooks/protocol"
)

func call(t testing.TB, dir, event, kwargs string) dispatch.Call {
	t.Helper()
	ev, ok := protocol.Lookup(event)
	if !ok {
		t.Fatalf("unknown event %s", event)
	}
	kw, err := protocol.ParseObject([]byte(kwargs))
	if err != nil {
		t.Fatal(err)
	}
	return dispatch.Call{Event: ev, Kwargs: kw, Cwd: dir, Home: dir, Env: []string{"PATH=" + os.Getenv("PATH")}}
}

func entry(event, command string, stream bool) config.ShellHook {
	return config.ShellHook{Event: event, Command: command, Timeout: 10 * time.Second, Stream: stream}
}

type logged struct {
	mu   sync.Mutex
	msgs []string
}

func (l *logged) warn(msg string) { l.mu.Lock(); l.msgs = append(l.msgs, msg); l.mu.Unlock() }

func waitFile(t *testing.T, path string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not appear within 20s", path)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestASlowHookDropsItsOwnEventsWhileAFastOneSeesThemAll(t *testing.T) {
	dir := t.TempDir()
	var log logged
	o := New(Options{QueueSize: 1024, Warn: log.warn})
	src := &shellhook.ShellSource{
		Entries: []config.ShellHook{
			entry("on_stream_delta", `sh -c 'cat > part; mv part fast.jsonl'`, true),
			entry("on_stream_delta", `sh -c 'sleep 1'`, false),
		},
		Streams: o.Streams(),
	}
	sources := []dispatch.Source{src}
	const events = 10000
	took := make([]time.Duration, 0, events)
	for i := 0; i < events; i++ {
		c := call(t, dir, "on_stream_delta", fmt.Sprintf(`{"session_id":"s1","delta":"%d","kind":"text"}`, i))
		start := time.Now()
		a := o.Accept(c, sources, false, nil)
		took = append(took, time.Since(start))
		if a.Queued != 2 {
			t.Fatalf("event %d: %+v", i, a)
		}
		if i%8 == 7 {
			// About 7,000 events a second: a faster stream than any model's,
			// which a stream hook keeps up with even under -race.
			time.Sleep(time.Millisecond)
		}
	}
	o.Accept(call(t, dir, "on_stream_end", `{"session_id":"s1","final_text":"..."}`), sources, false, nil)
	waitFile(t, filepath.Join(dir, "fast.jsonl"))

	data, err := os.ReadFile(filepath.Join(dir, "fast.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != events {
		t.Fatalf("the fast hook saw %d events, want %d", len(lines), events)
	}
	for i, l := range lines {
		if got := gjson.Get(l, "extra.delta").Str; got != fmt.Sprint(i) {
			t.Fatalf("the fast hook's line %d is delta %s", i, got)
		}
	}

	sum := o.Close(2 * time.Second)
	var slow, fast dispatch.QueueStats
	for _, q := range sum.Queues {
		if strings.Contains(q.Hook, "sleep") {
			slow = q
		} else {
			fast = q
		}
	}
	if fast.Dropped != 0 || fast.Delivered != events+1 {
		t.Errorf("fast queue %+v", fast)
	}
	if slow.Dropped < events-1024-20 || slow.Delivered+slow.Dropped != events {
		t.Errorf("slow queue %+v: want most of %d events dropped, and every event counted", slow, events)
	}
	if !strings.Contains(sum.String(), fmt.Sprintf(`on_stream_delta shell "sh -c 'sleep 1'" dropped %d`, slow.Dropped)) {
		t.Errorf("summary %q", sum)
	}

	sort.Slice(took, func(i, j int) bool { return took[i] < took[j] })
	p99 := took[len(took)*99/100]
	t.Logf("Accept: p50 %v, p99 %v, max %v", took[len(took)/2], p99, took[len(took)-1])
	// The property, not a speed: no Accept waited for the stalled hook,
	// which takes 1 s per event. The figure is BenchmarkAccept's.
	if p99 >= time.Second {
		t.Errorf("Accept p99 %v: the caller waited for the stalled hook", p99)
	}
}

func TestReasoningDeltasNeedTheOptIn(t *testing.T) {
	for _, optIn := range []bool{false, true} {
		t.Run(fmt.Sprintf("stream_reasoning_deltas %v", optIn), func(t *testing.T) {
			dir := t.TempDir()
			o := New(Options{})
			src := &shellhook.ShellSource{
				Entries: []config.ShellHook{entry("on_stream_delta", `sh -c 'cat > part; mv part seen.jsonl'`, true)},
				Streams: o.Streams(),
			}
			sources := []dispatch.Source{src}
			a := o.Accept(call(t, dir, "on_stream_delta", `{"session_id":"s","delta":"thinking","kind":"reasoning"}`), sources, optIn, nil)
			if a.Filtered == optIn {
				t.Errorf("reasoning delta: %+v", a)
			}
			o.Accept(call(t, dir, "on_stream_delta", `{"session_id":"s","delta":"hello","kind":"text"}`), sources, optIn, nil)
			o.Accept(call(t, dir, "on_stream_end", `{"session_id":"s"}`), sources, optIn, nil)
			waitFile(t, filepath.Join(dir, "seen.jsonl"))
			data, _ := os.ReadFile(filepath.Join(dir, "seen.jsonl"))
			var kinds []string
			for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
				kinds = append(kinds, gjson.Get(l, "extra.kind").Str)
			}
			want := "text"
			if optIn {
				want = "reasoning text"
			}
			if got := strings.Join(kinds, " "); got != want {
				t.Errorf("the hook saw %q, want %q", got, want)
			}
			if sum := o.Close(time.Second); sum.Dropped != 0 {
				t.Errorf("dropped %d", sum.Dropped)
			}
		})
	}
}

func TestCloseIsBoundedAndLeavesNoStreamProcess(t *testing.T) {
	dir := t.TempDir()
	o := New(Options{})
	src := &shellhook.ShellSource{
		Entries: []config.ShellHook{
			// Reads its lines, but ignores both the end of its input and TERM.
			entry("on_stream_start", `sh -c 'echo $$ > pid; trap "" TERM; cat >/dev/null; while :; do sleep 0.05; done'`, true),
			entry("on_stream_start", `sh -c 'sleep 30'`, false),
		},
		Streams: o.Streams(),
	}
	for i := 0; i < 5; i++ {
		o.Accept(call(t, dir, "on_stream_start", fmt.Sprintf(`{"session_id":"s%d"}`, i%2)), []dispatch.Source{src}, false, nil)
	}
	waitFile(t, filepath.Join(dir, "pid"))
	deadline := time.Now().Add(20 * time.Second)
	for streamed := false; !streamed; {
		for _, q := range o.Stats() {
			streamed = streamed || strings.Contains(q.Hook, "trap") && q.Delivered == 5
		}
		if time.Now().After(deadline) {
			t.Fatalf("the stream hook did not get its lines: %+v", o.Stats())
		}
		time.Sleep(10 * time.Millisecond)
	}
	start := time.Now()
	sum := o.Close(300 * time.Millisecond)
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("Close took %v", took)
	}
	if sum.Streams != 2 {
		t.Errorf("closed %d stream processes, want one per session", sum.Streams)
	}
	if sum.Dropped != 4 { // the sleeper ran one event and was cancelled; four waited
		t.Errorf("summary %+v", sum)
	}
	if a := o.Accept(call(t, dir, "on_stream_start", `{}`), []dispatch.Source{src}, false, nil); !a.Closed {
		t.Errorf("accepted after Close: %+v", a)
	}
	if o.Streams().Stats().Open != 0 {
		t.Error("stream processes are still open")
	}
}

func TestSummary(t *testing.T) {
	for _, tc := range []struct {
		name string
		sum  Summary
		want string
	}{
		{"Nothing happened", Summary{}, "observer queues: 0 events delivered, 0 dropped"},
		{"Drops are listed, most first", Summary{
			Delivered: 10, Dropped: 7, Streams: 1,
			Queues: []dispatch.QueueStats{
				{Source: "shell", Hook: "a", Events: []string{"on_stream_delta"}, Dropped: 2},
				{Source: "plugin", Hook: "p:cb", Events: []string{"on_stream_delta"}, Dropped: 5},
				{Source: "shell", Hook: "b", Events: []string{"on_stream_end"}},
			},
		}, `observer queues: 10 events delivered, 7 dropped (on_stream_delta plugin "p:cb" dropped 5; on_stream_delta shell "a" dropped 2); closed 1 stream hook processes`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.sum.String(); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// BenchmarkAccept is what a host's event costs before its answer: the
// reasoning filter, the sources' hooks and the queueing.
func BenchmarkAccept(b *testing.B) {
	dir := b.TempDir()
	o := New(Options{QueueSize: 1 << 16})
	defer o.Close(10 * time.Second)
	src := &shellhook.ShellSource{Entries: []config.ShellHook{entry("on_stream_delta", `sh -c 'cat >/dev/null'`, true)}, Streams: o.Streams()}
	c := call(b, dir, "on_stream_delta", `{"session_id":"s","delta":"tok","kind":"text"}`)
	sources := []dispatch.Source{src}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		o.Accept(c, sources, false, nil)
	}
}
