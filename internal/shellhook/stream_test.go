//go:build unix

package shellhook

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/noora-hooks/noora-hooks/internal/dispatch"

	"github.com/noora-hooks/noora-hooks/internal/config"
	"github.com/tidwall/gjson"
)

func streamEntry(event, command string) config.ShellHook {
	return config.ShellHook{Event: event, Command: command, Timeout: 5 * time.Second, Stream: true}
}

func streamCall(t testing.TB, dir, event, kwargs string) dispatch.Call {
	t.Helper()
	return dispatch.Call{
		Event: mustEvent(t, event), Kwargs: mustKwargs(t, kwargs),
		Cwd: dir, Home: dir, Env: []string{"PATH=" + os.Getenv("PATH")},
	}
}

// waitFor polls cond for up to 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: still not true after 10s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// warnings collects what a Streams warns about.
type warnings struct {
	mu   sync.Mutex
	msgs []string
}

func (w *warnings) add(msg string) { w.mu.Lock(); w.msgs = append(w.msgs, msg); w.mu.Unlock() }
func (w *warnings) all() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(w.msgs, "\n")
}

func readLines(t *testing.T, path string) []gjson.Result {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []gjson.Result
	for _, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if l != "" {
			out = append(out, gjson.Parse(l))
		}
	}
	return out
}

func TestAStreamHookGetsEveryLineOfItsSessionAndExitsAfterTheEnd(t *testing.T) {
	dir := t.TempDir()
	// The file is complete only once stdin ends: `cat` then exits.
	hook := &StreamHook{Config: streamEntry("on_stream_delta", `sh -c 'cat > part; mv part stream.jsonl; echo "$NOORA_HOOK_STREAM $NOORA_HOOK_EVENT" > env'`), Streams: &Streams{}}
	defer hook.Streams.Close(time.Second)
	fire := func(event, kw string) {
		res := hook.Run(context.Background(), streamCall(t, dir, event, kw))
		if res.Status != dispatch.StatusOK || len(res.Warnings) > 0 {
			t.Fatalf("%s: %s %v", event, res.Status, res.Warnings)
		}
	}
	fire("on_stream_start", `{"session_id":"s1","turn_id":"t"}`)
	const deltas = 500
	for i := 0; i < deltas; i++ {
		fire("on_stream_delta", fmt.Sprintf(`{"session_id":"s1","delta":"d%d","kind":"text"}`, i))
	}
	if hook.Streams.Stats().Open != 1 {
		t.Fatalf("open streams %+v, want 1 process for the session", hook.Streams.Stats())
	}
	fire("on_stream_end", `{"session_id":"s1","final_text":"all","finished":true}`)
	waitFor(t, "the hook wrote its stream after end of input", func() bool {
		_, err := os.Stat(filepath.Join(dir, "stream.jsonl"))
		return err == nil
	})
	lines := readLines(t, filepath.Join(dir, "stream.jsonl"))
	if len(lines) != deltas+2 {
		t.Fatalf("%d lines, want %d", len(lines), deltas+2)
	}
	if e := lines[0].Get("hook_event_name").Str; e != "on_stream_start" {
		t.Errorf("first line is %s", e)
	}
	for i := 0; i < deltas; i++ {
		l := lines[i+1]
		if l.Get("hook_event_name").Str != "on_stream_delta" || l.Get("extra.delta").Str != fmt.Sprintf("d%d", i) || l.Get("session_id").Str != "s1" || l.Get("cwd").Str != dir {
			t.Fatalf("line %d is %s", i+1, l.Raw)
		}
	}
	if e := lines[deltas+1].Get("hook_event_name").Str; e != "on_stream_end" {
		t.Errorf("last line is %s", e)
	}
	waitFor(t, "the stream is closed", func() bool { return hook.Streams.Stats().Open == 0 })
	// The hook writes env after stream.jsonl, as it exits: wait for it.
	var env []byte
	waitFor(t, "the hook wrote its environment", func() bool {
		env, _ = os.ReadFile(filepath.Join(dir, "env"))
		return strings.HasSuffix(string(env), "\n")
	})
	if got := strings.TrimSpace(string(env)); got != "1 on_stream_start" {
		t.Errorf("environment %q, want NOORA_HOOK_STREAM=1 and the event that opened the stream", got)
	}
}

func TestEachSessionHasItsOwnProcess(t *testing.T) {
	dir := t.TempDir()
	hook := &StreamHook{Config: streamEntry("on_stream_delta", `sh -c 'cat > "out-$$"'`), Streams: &Streams{}}
	for i := 0; i < 3; i++ {
		for _, s := range []string{"a", "b"} {
			hook.Run(context.Background(), streamCall(t, dir, "on_stream_delta", fmt.Sprintf(`{"session_id":%q,"delta":"%d"}`, s, i)))
		}
	}
	if n := hook.Streams.Stats().Open; n != 2 {
		t.Fatalf("%d processes, want one per session", n)
	}
	if n := hook.Streams.Close(5 * time.Second); n != 2 {
		t.Errorf("Close closed %d, want 2", n)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "out-*"))
	if len(files) != 2 {
		t.Fatalf("files %v, want 2", files)
	}
	for _, f := range files {
		lines := readLines(t, f)
		if len(lines) != 3 {
			t.Fatalf("%s: %d lines", f, len(lines))
		}
		for i, l := range lines {
			if l.Get("session_id").Str != lines[0].Get("session_id").Str || l.Get("extra.delta").Str != fmt.Sprint(i) {
				t.Errorf("%s line %d: %s", f, i, l.Raw)
			}
		}
	}
}

func TestStreamEndClosesStreamsWhoseHookIsNotListedThere(t *testing.T) {
	dir := t.TempDir()
	cmd := `sh -c 'cat > part; mv part done'`
	streams := &Streams{}
	src := &ShellSource{Entries: []config.ShellHook{streamEntry("on_stream_start", cmd), streamEntry("on_stream_delta", cmd)}, Streams: streams}
	d := &dispatch.Dispatcher{Sources: []dispatch.Source{src}}
	d.Fire(context.Background(), streamCall(t, dir, "on_stream_start", `{"session_id":"s"}`))
	d.Fire(context.Background(), streamCall(t, dir, "on_stream_delta", `{"session_id":"s","delta":"x"}`))
	end := streamCall(t, dir, "on_stream_end", `{"session_id":"s"}`)
	hooks := src.Hooks(context.Background(), end)
	if len(hooks) != 1 || !hooks[0].(*StreamHook).CloseOnly {
		t.Fatalf("on_stream_end hooks %#v, want one that only closes", hooks)
	}
	d.Fire(context.Background(), end)
	waitFor(t, "the stream process exited", func() bool {
		_, err := os.Stat(filepath.Join(dir, "done"))
		return err == nil
	})
	if lines := readLines(t, filepath.Join(dir, "done")); len(lines) != 2 {
		t.Errorf("%d lines, want start and delta only", len(lines))
	}
	// Without Streams (exec), there is nothing to close.
	if hooks := (&ShellSource{Entries: src.Entries}).Hooks(context.Background(), end); len(hooks) != 0 {
		t.Errorf("exec got %d hooks for on_stream_end", len(hooks))
	}
}

func TestAnIdleStreamIsClosed(t *testing.T) {
	dir := t.TempDir()
	var w warnings
	hook := &StreamHook{Config: streamEntry("on_stream_start", `sh -c 'cat > part; mv part done'`), Streams: &Streams{IdleTimeout: 100 * time.Millisecond, Warn: w.add}}
	defer hook.Streams.Close(time.Second)
	hook.Run(context.Background(), streamCall(t, dir, "on_stream_start", `{"session_id":"s"}`))
	waitFor(t, "the idle process was closed", func() bool {
		_, err := os.Stat(filepath.Join(dir, "done"))
		return err == nil && hook.Streams.Stats().Open == 0
	})
	if !strings.Contains(w.all(), `no line for session "s" in 100ms; its stream was closed (hooks_stream_idle_timeout)`) {
		t.Errorf("warnings %q", w.all())
	}
}

func TestAStreamProcessThatDiesIsNotStartedAgainForItsSession(t *testing.T) {
	dir := t.TempDir()
	hook := &StreamHook{Config: streamEntry("on_stream_delta", `sh -c 'echo started >> starts; echo broken >&2; exit 4'`), Streams: &Streams{}}
	defer hook.Streams.Close(time.Second)
	var warned []string
	deadline := time.Now().Add(10 * time.Second)
	for len(warned) == 0 && time.Now().Before(deadline) {
		res := hook.Run(context.Background(), streamCall(t, dir, "on_stream_delta", `{"session_id":"s"}`))
		warned = append(warned, dispatch.Strings(res.Warnings)...)
		time.Sleep(5 * time.Millisecond)
	}
	for i := 0; i < 10; i++ {
		res := hook.Run(context.Background(), streamCall(t, dir, "on_stream_delta", `{"session_id":"s"}`))
		if res.Status != dispatch.StatusSkipped {
			t.Errorf("a line after the failure: %s", res.Status)
		}
		warned = append(warned, dispatch.Strings(res.Warnings)...)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "ended before its stream did: it exited with status 4: broken; the other lines of session \"s\"'s stream are dropped") {
		t.Fatalf("warnings %q, want one saying how it ended", warned)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "starts")); strings.Count(string(data), "started") != 1 {
		t.Fatalf("started %d times", strings.Count(string(data), "started"))
	}
	// The end of the stream forgets the failure: the next stream tries again.
	hook.Run(context.Background(), streamCall(t, dir, "on_stream_end", `{"session_id":"s"}`))
	hook.Run(context.Background(), streamCall(t, dir, "on_stream_delta", `{"session_id":"s"}`))
	waitFor(t, "a second start", func() bool {
		data, _ := os.ReadFile(filepath.Join(dir, "starts"))
		return strings.Count(string(data), "started") == 2
	})
}

func TestAStreamHookThatDoesNotReadIsKilledAtItsTimeout(t *testing.T) {
	dir := t.TempDir()
	e := streamEntry("on_stream_delta", `sh -c 'echo $$ > pid; exec sleep 60'`)
	e.Timeout = 300 * time.Millisecond
	hook := &StreamHook{Config: e, Streams: &Streams{}}
	defer hook.Streams.Close(time.Second)
	big := strings.Repeat("x", 32<<10)
	start := time.Now()
	var res dispatch.Result
	for i := 0; i < 100 && res.Status != dispatch.StatusTimeout; i++ {
		res = hook.Run(context.Background(), streamCall(t, dir, "on_stream_delta", `{"session_id":"s","delta":"`+big+`"}`))
	}
	if res.Status != dispatch.StatusTimeout || !strings.Contains(strings.Join(dispatch.Strings(res.Warnings), ""), "did not read its stdin for 0s; its process group was killed") {
		t.Fatalf("status %s, warnings %q", res.Status, res.Warnings)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("took %v", took)
	}
	cmdPgoneOf(t, filepath.Join(dir, "pid"))
}

// cmdPgoneOf waits for the process group whose leader's pid is in file to go.
func cmdPgoneOf(t *testing.T, file string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	fmt.Sscan(string(data), &pid)
	waitFor(t, "the process group is gone", func() bool { return !groupAlive(pid) })
}

func TestCloseKillsStreamsThatOutstayTheGrace(t *testing.T) {
	dir := t.TempDir()
	hook := &StreamHook{Config: streamEntry("on_stream_delta", `sh -c 'echo $$ > pid; trap "" TERM; while :; do sleep 0.05; done'`), Streams: &Streams{}}
	hook.Run(context.Background(), streamCall(t, dir, "on_stream_delta", `{"session_id":"s"}`))
	waitFor(t, "the hook started", func() bool { _, err := os.Stat(filepath.Join(dir, "pid")); return err == nil })
	start := time.Now()
	if n := hook.Streams.Close(200 * time.Millisecond); n != 1 {
		t.Errorf("closed %d", n)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("Close took %v", took)
	}
	cmdPgoneOf(t, filepath.Join(dir, "pid"))
	res := hook.Run(context.Background(), streamCall(t, dir, "on_stream_delta", `{"session_id":"s"}`))
	if res.Status != dispatch.StatusSkipped {
		t.Errorf("a line after Close: %s", res.Status)
	}
}

func TestTooManySessionsCloseTheLeastRecentlyUsed(t *testing.T) {
	dir := t.TempDir()
	var w warnings
	hook := &StreamHook{Config: streamEntry("on_stream_delta", `sh -c 'cat > "out-$NOORA_HOOK_EVENT-$$"'`), Streams: &Streams{MaxSessions: 2, Warn: w.add}}
	defer hook.Streams.Close(time.Second)
	for _, s := range []string{"a", "b", "a", "c"} {
		hook.Run(context.Background(), streamCall(t, dir, "on_stream_delta", `{"session_id":"`+s+`"}`))
		time.Sleep(2 * time.Millisecond)
	}
	if n := hook.Streams.Stats().Open; n != 2 {
		t.Errorf("%d open, want 2", n)
	}
	if !strings.Contains(w.all(), `more than 2 sessions at once; closed the stream of session "b", the least recently used`) {
		t.Errorf("warnings %q", w.all())
	}
}

func TestWithoutStreamsEachEventIsAStreamOfOneLine(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, command string
		timeout       time.Duration
		status        dispatch.Status
		exit          int
		warning       string
	}{
		{"A hook that reads its line", `sh -c 'cat > one.jsonl'`, 5 * time.Second, dispatch.StatusOK, 0, ""},
		{"A hook that fails", `sh -c 'echo oops >&2; exit 3'`, 5 * time.Second, dispatch.StatusError, 3, `on_stream_delta hook "sh -c 'echo oops >&2; exit 3'": exited with status 3: oops`},
		{"A hook that never ends", `sleep 60`, 200 * time.Millisecond, dispatch.StatusTimeout, -1, "timed out after 0s; its process group was killed"},
		{"A missing program", `no-such-program-here`, 5 * time.Second, dispatch.StatusError, -1, "cannot start: program not found: no-such-program-here"},
		{"An unbalanced quote", `sh -c 'x`, 5 * time.Second, dispatch.StatusError, -1, "cannot be parsed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := streamEntry("on_stream_delta", tc.command)
			e.Timeout = tc.timeout
			res := (&StreamHook{Config: e}).Run(context.Background(), streamCall(t, dir, "on_stream_delta", `{"session_id":"s","delta":"hi"}`))
			if res.Status != tc.status {
				t.Errorf("status %s, want %s (%v)", res.Status, tc.status, res.Warnings)
			}
			if tc.exit >= 0 && (res.ExitCode == nil || *res.ExitCode != tc.exit) {
				t.Errorf("exit code %v, want %d", res.ExitCode, tc.exit)
			}
			all := strings.Join(dispatch.Strings(res.Warnings), "\n")
			if tc.warning == "" && all != "" || !strings.Contains(all, tc.warning) {
				t.Errorf("warnings %q, want %q", all, tc.warning)
			}
		})
	}
	lines := readLines(t, filepath.Join(dir, "one.jsonl"))
	if len(lines) != 1 || lines[0].Get("extra.delta").Str != "hi" {
		t.Errorf("the hook read %v", lines)
	}
}

func TestStreamHooksShareOneQueueAcrossEvents(t *testing.T) {
	cmd := "tts"
	start := &StreamHook{Config: streamEntry("on_stream_start", cmd)}
	delta := &StreamHook{Config: streamEntry("on_stream_delta", cmd)}
	if start.QueueKey("on_stream_start") != delta.QueueKey("on_stream_delta") {
		t.Error("the start and the deltas of one stream hook would be delivered by different workers, out of order")
	}
	if start.QueueKey("x") == (&StreamHook{Config: streamEntry("on_stream_start", "other")}).QueueKey("x") {
		t.Error("two stream hooks share a queue")
	}
	var _ dispatch.QueueKeyer = start
}

func groupAlive(pgid int) bool { return syscall.Kill(-pgid, 0) == nil }

// BenchmarkStreamLine is what one line to a warm stream process costs the
// worker that delivers it: the payload, and the write to the pipe.
func BenchmarkStreamLine(b *testing.B) {
	dir := b.TempDir()
	hook := &StreamHook{Config: streamEntry("on_stream_delta", `sh -c 'cat >/dev/null'`), Streams: &Streams{}}
	defer hook.Streams.Close(5 * time.Second)
	c := streamCall(b, dir, "on_stream_delta", `{"session_id":"s","delta":"token","kind":"text","turn_id":"t1","iteration":1,"model":"m","provider":"p","surface":"cli"}`)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if res := hook.Run(context.Background(), c); res.Status != dispatch.StatusOK {
			b.Fatal(res.Warnings)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}
