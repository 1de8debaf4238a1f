package server

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/noora-hooks/noora-hooks/client"
	"github.com/noora-hooks/noora-hooks/protocol"
)

// queuingBackend queues streaming events instead of firing them; their done
// functions wait until the test settles them.
type queuingBackend struct {
	*fakeBackend
	mu     sync.Mutex
	queued []string
	dones  []func()
	refuse bool
}

func (b *queuingBackend) Queue(event protocol.Event, kw protocol.Kwargs, cwd string, done func()) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.refuse {
		done()
		return false
	}
	raw, _ := kw.MarshalJSON()
	b.queued = append(b.queued, event.Name+" "+string(raw))
	b.dones = append(b.dones, done)
	return true
}

func (b *queuingBackend) settle() {
	b.mu.Lock()
	dones := b.dones
	b.dones = nil
	b.mu.Unlock()
	for _, d := range dones {
		d()
	}
}

func TestStreamingEventsAreQueuedAndAnsweredAtOnce(t *testing.T) {
	b := &queuingBackend{fakeBackend: &fakeBackend{name: "b"}}
	_, addr := start(t, Options{Load: static(b)})
	for _, event := range []string{"on_stream_start", "on_stream_delta", "on_stream_end", "on_interim_message"} {
		resp, body := request(t, addr, "POST", "/v1/events/"+event+"?trace=1", `{"delta":"x"}`, nil)
		if resp.StatusCode != http.StatusAccepted || body != `{"event":"`+event+`"}`+"\n" {
			t.Errorf("%s: %d %q", event, resp.StatusCode, body)
		}
	}
	if b.calls.Load() != 0 {
		t.Errorf("Fire ran %d times for queued events", b.calls.Load())
	}
	if len(b.queued) != 4 || b.queued[1] != `on_stream_delta {"delta":"x"}` {
		t.Errorf("queued %q", b.queued)
	}
	// Other observers are fired as before: 200 once their hooks are done.
	if resp, _ := request(t, addr, "POST", "/v1/events/post_llm_call", `{}`, nil); resp.StatusCode != http.StatusOK || b.calls.Load() != 1 {
		t.Errorf("post_llm_call: %d, %d calls", resp.StatusCode, b.calls.Load())
	}
	// The client takes a 202 as an answer, not a refusal.
	c := client.New(addr, "")
	defer c.Close()
	a, err := c.Fire(context.Background(), "on_stream_delta", []byte(`{}`), client.FireOptions{})
	if err != nil || !a.Queued || string(a.Body) != `{"event":"on_stream_delta"}`+"\n" {
		t.Errorf("client: %+v, %v", a, err)
	}
	b.settle()
}

func TestABackendThatDoesNotQueueFiresStreamingEvents(t *testing.T) {
	b := &fakeBackend{name: "plain"}
	_, addr := start(t, Options{Load: static(b)})
	resp, _ := request(t, addr, "POST", "/v1/events/on_stream_delta", `{}`, nil)
	if resp.StatusCode != http.StatusOK || b.calls.Load() != 1 {
		t.Errorf("%d, %d calls", resp.StatusCode, b.calls.Load())
	}
}

func TestAQueuerThatRefusesIsA503(t *testing.T) {
	b := &queuingBackend{fakeBackend: &fakeBackend{name: "b"}, refuse: true}
	_, addr := start(t, Options{Load: static(b)})
	resp, body := request(t, addr, "POST", "/v1/events/on_stream_delta", `{}`, nil)
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "shutting down") {
		t.Errorf("%d %s", resp.StatusCode, body)
	}
}

func TestStreamingEventsDoNotWaitBehindSlowEvents(t *testing.T) {
	b := &queuingBackend{fakeBackend: &fakeBackend{name: "b", block: make(chan struct{}), started: make(chan struct{}, 1)}}
	defer b.settle()
	_, addr := start(t, Options{Load: static(b), MaxEvents: 1})
	go tryRequest(addr, "POST", "/v1/events/pre_llm_call", `{}`, nil)
	<-b.started // the only slot for fired events is taken
	defer close(b.block)
	done := make(chan int)
	go func() {
		resp, _, err := tryRequest(addr, "POST", "/v1/events/on_stream_delta", `{}`, nil)
		if err != nil {
			t.Error(err)
			done <- 0
			return
		}
		done <- resp.StatusCode
	}()
	select {
	case code := <-done:
		if code != http.StatusAccepted {
			t.Errorf("status %d", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a streaming event waited for a slow directive event")
	}
}

func TestAReplacedBackendStaysOpenUntilItsQueuedEventsAreDone(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	os.WriteFile(cfg, []byte("a"), 0o600)
	first := &queuingBackend{fakeBackend: &fakeBackend{name: "first"}}
	second := &queuingBackend{fakeBackend: &fakeBackend{name: "second"}}
	defer second.settle()
	n := 0
	load := func() (Backend, error) {
		n++
		if n == 1 {
			return first, nil
		}
		return second, nil
	}
	_, addr := start(t, Options{Load: load, Watch: []string{cfg}})
	request(t, addr, "POST", "/v1/events/on_stream_delta", `{}`, nil)
	os.WriteFile(cfg, []byte("bb"), 0o600)
	request(t, addr, "POST", "/v1/events/on_stream_delta", `{}`, nil)
	if len(second.queued) != 1 {
		t.Fatalf("the second backend queued %d events", len(second.queued))
	}
	if first.closed.Load() {
		t.Fatal("the replaced backend was closed while its hooks still had an event")
	}
	first.settle()
	if !first.closed.Load() {
		t.Error("the replaced backend was not closed once its hooks were done")
	}
}
