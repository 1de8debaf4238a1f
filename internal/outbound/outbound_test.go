package outbound

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/noora-hooks/noora-hooks/internal/dispatch"

	"github.com/tidwall/gjson"

	"github.com/noora-hooks/noora-hooks/internal/config"
	"github.com/noora-hooks/noora-hooks/protocol"
)

// request is what a test receiver saw.
type request struct {
	header http.Header
	body   []byte
	path   string
}

// receiver is an httptest server that records requests and answers with the
// next of codes (the last one repeats).
type receiver struct {
	*httptest.Server
	mu    sync.Mutex
	got   []request
	codes []int
	hold  chan struct{} // when set, requests wait for it to close
}

func newReceiver(t *testing.T, codes ...int) *receiver {
	r := &receiver{codes: codes}
	r.Server = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	r.got = append(r.got, request{req.Header.Clone(), body, req.URL.Path})
	code := 200
	if len(r.codes) > 0 {
		code = r.codes[min(len(r.got), len(r.codes))-1]
	}
	hold := r.hold
	r.mu.Unlock()
	if hold != nil {
		select {
		case <-hold:
		case <-req.Context().Done():
			return
		}
	}
	if code >= 300 && code < 400 {
		w.Header().Set("Location", "/elsewhere")
	}
	w.WriteHeader(code)
	fmt.Fprintf(w, "answer %d", code)
}

func (r *receiver) requests() []request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.got)
}

// fire runs the outbound source for one event as exec would, without
// starting a background sender.
func fire(t *testing.T, src *Source, event string, kw protocol.Kwargs, env ...string) []dispatch.Result {
	t.Helper()
	ev, ok := protocol.Lookup(event)
	if !ok {
		t.Fatalf("unknown event %s", event)
	}
	src.StartSender = func([]string) error { return nil }
	d := dispatch.Dispatcher{Sources: []dispatch.Source{src}}
	rep := d.Fire(context.Background(), dispatch.Call{Event: ev, Kwargs: kw, Cwd: "/work", Env: env})
	if len(rep.Combined.Answer) != 0 {
		t.Errorf("outbound answered %v; webhooks never answer", rep.Combined.Answer)
	}
	for _, r := range rep.Results {
		if r.Answer.Kind != protocol.None {
			t.Errorf("%s answered %v; webhooks never answer", r.Name, r.Answer)
		}
	}
	return rep.Results
}

func newSource(t *testing.T, targets ...config.OutboundTarget) *Source {
	home := t.TempDir()
	return &Source{Home: home, Spool: Spool{Dir: DirOf(home)}, Targets: targets, Version: "1.2.3", Now: time.Now}
}

func target(name, url string, events ...string) config.OutboundTarget {
	return config.OutboundTarget{Name: name, URL: url, Events: events, Timeout: 5 * time.Second}
}

// drain runs a sender over the spool in the foreground and returns its results.
func drain(t *testing.T, sp Spool) []Result {
	t.Helper()
	s := NewSender(sp)
	var got []Result
	s.Report = func(r Result) { got = append(got, r) }
	lock, err := sp.TryLockSender()
	if err != nil || lock == nil {
		t.Fatalf("take the sender lock: %v (held: %v)", err, lock == nil)
	}
	if err := s.Run(context.Background(), lock, true); err != nil {
		t.Fatal(err)
	}
	return got
}

func TestDeliveryBodyHeadersAndSignature(t *testing.T) {
	recv := newReceiver(t)
	signed := target("signed", recv.URL+"/signed", "post_tool_call")
	signed.Secret = "literal-secret"
	fromEnv := target("from-env", recv.URL+"/from-env", "post_tool_call")
	fromEnv.SecretEnv, fromEnv.Secret = "HOOK_SECRET", "not-this-one"
	emptyEnv := target("empty-env", recv.URL+"/empty-env", "post_tool_call")
	emptyEnv.SecretEnv, emptyEnv.Secret = "UNSET_SECRET", "not-this-one"
	unsigned := target("unsigned", recv.URL+"/unsigned", "post_tool_call")
	src := newSource(t, signed, fromEnv, emptyEnv, unsigned)

	kw, _ := protocol.ParseObject([]byte(`{"tool_name":"terminal","args":{"command":"ls"},"session_id":"s1","task_id":"t1"}`))
	results := fire(t, src, "post_tool_call", kw, "PATH=/bin", "HOOK_SECRET=env-secret")
	var warnings []string
	for _, r := range results {
		if r.Source != "outbound" || r.Status != dispatch.StatusOK {
			t.Errorf("result %+v, want an ok outbound result", r)
		}
		warnings = append(warnings, dispatch.Strings(r.Warnings)...)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], `outbound target "empty-env": secret_env UNSET_SECRET is empty, so its deliveries are UNSIGNED`) {
		t.Errorf("warnings %q, want one about the empty secret_env", warnings)
	}
	if got := drain(t, src.Spool); len(got) != 4 {
		t.Fatalf("delivered %d, want 4", len(got))
	}

	secrets := map[string]string{"/signed": "literal-secret", "/from-env": "env-secret"}
	reqs := recv.requests()
	slices.SortFunc(reqs, func(a, b request) int { return strings.Compare(a.path, b.path) })
	for _, req := range reqs {
		body := gjson.ParseBytes(req.body)
		var keys []string
		body.ForEach(func(k, _ gjson.Result) bool { keys = append(keys, k.String()); return true })
		wantKeys := []string{"hook_event_name", "tool_name", "tool_input", "session_id", "cwd", "extra", "delivery_id", "timestamp"}
		if !slices.Equal(keys, wantKeys) {
			t.Errorf("%s: body keys %v, want %v", req.path, keys, wantKeys)
		}
		for path, want := range map[string]string{
			"hook_event_name": "post_tool_call", "tool_name": "terminal", "tool_input.command": "ls",
			"session_id": "s1", "cwd": "/work", "extra.task_id": "t1",
		} {
			if got := body.Get(path).String(); got != want {
				t.Errorf("%s: body %s = %q, want %q", req.path, path, got, want)
			}
		}
		id := body.Get("delivery_id").String()
		if !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(id) {
			t.Errorf("%s: delivery_id %q is not 32 hex digits", req.path, id)
		}
		if ts := body.Get("timestamp").String(); !regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`).MatchString(ts) {
			t.Errorf("%s: timestamp %q is not UTC ...Z", req.path, ts)
		}
		for h, want := range map[string]string{
			"Content-Type": "application/json", "User-Agent": "noora-hooks/1.2.3",
			"X-Noora-Event": "post_tool_call", "X-Noora-Delivery": id,
		} {
			if got := req.header.Get(h); got != want {
				t.Errorf("%s: header %s = %q, want %q", req.path, h, got, want)
			}
		}
		sig := req.header.Get("X-Noora-Signature-256")
		secret, isSigned := secrets[req.path]
		switch {
		case isSigned && !Verify(secret, req.body, sig):
			t.Errorf("%s: signature %q does not verify with %q", req.path, sig, secret)
		case isSigned && Verify("not-this-one", req.body, sig):
			t.Errorf("%s: signed with the literal secret, but secret_env wins", req.path)
		case !isSigned && sig != "":
			t.Errorf("%s: signature %q on an unsigned target", req.path, sig)
		}
	}
}

func TestDeliveryPolicy(t *testing.T) {
	tests := []struct {
		name     string
		codes    []int
		status   Status
		attempts int
		gaveUp   bool // failures.json says given up
	}{
		{"A 200 is delivered at once", []int{200}, Delivered, 1, false},
		{"A 500 then a 200 is delivered after one retry", []int{500, 200}, Delivered, 2, false},
		{"A 500 twice is given up", []int{500, 503}, GaveUp, 2, true},
		{"A 301 is neither followed nor retried", []int{301}, GaveUp, 1, true},
		{"A 400 is not retried", []int{400}, GaveUp, 1, true},
		{"A 429 is not retried", []int{429}, GaveUp, 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			recv := newReceiver(t, tt.codes...)
			src := newSource(t, target("t", recv.URL+"/hook", "on_session_end"))
			fire(t, src, "on_session_end", protocol.Kwargs{})
			start := time.Now()
			got := drain(t, src.Spool)
			if len(got) != 1 || got[0].Status != tt.status || len(got[0].Attempts) != tt.attempts {
				t.Fatalf("results %+v, want one %s after %d attempts", got, tt.status, tt.attempts)
			}
			reqs := recv.requests()
			if len(reqs) != tt.attempts {
				t.Fatalf("the receiver got %d requests, want %d", len(reqs), tt.attempts)
			}
			for _, r := range reqs {
				if r.path != "/hook" {
					t.Errorf("a request went to %s: redirects must not be followed", r.path)
				}
				if id := r.header.Get("X-Noora-Delivery"); id != got[0].Delivery.ID || string(r.body) != string(reqs[0].body) {
					t.Errorf("a retry changed the delivery: %s %s", id, r.body)
				}
			}
			if tt.attempts == 2 && time.Since(start) < RetryDelay {
				t.Errorf("retried after %v, want a wait of %v", time.Since(start), RetryDelay)
			}
			pending, _ := src.Spool.Pending()
			if len(pending) != 0 {
				t.Errorf("%d deliveries left in the spool; done or given up ones go", len(pending))
			}
			f, failed := src.Spool.Failures()[recv.URL+"/hook"]
			if failed != (tt.codes[0] != 200) || (failed && f.GaveUp != tt.gaveUp) {
				t.Errorf("failure record %+v (present %v), want given up %v", f, failed, tt.gaveUp)
			}
		})
	}
}

func TestDeliveryTransportFailures(t *testing.T) {
	t.Run("A refused connection is retried once, then given up", func(t *testing.T) {
		t.Parallel()
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		url := "http://" + l.Addr().String() + "/x"
		l.Close()
		src := newSource(t, target("t", url, "on_session_end"))
		fire(t, src, "on_session_end", protocol.Kwargs{})
		got := drain(t, src.Spool)
		if len(got) != 1 || got[0].Status != GaveUp || len(got[0].Attempts) != 2 || !strings.Contains(got[0].Err, "cannot connect") {
			t.Fatalf("results %+v, want given up after 2 attempts that could not connect", got)
		}
	})
	t.Run("A receiver that never answers times out per attempt", func(t *testing.T) {
		t.Parallel()
		recv := newReceiver(t)
		recv.hold = make(chan struct{})
		defer close(recv.hold)
		tg := target("t", recv.URL, "on_session_end")
		tg.Timeout = time.Second
		src := newSource(t, tg)
		fire(t, src, "on_session_end", protocol.Kwargs{})
		start := time.Now()
		got := drain(t, src.Spool)
		if len(got) != 1 || got[0].Status != GaveUp || len(got[0].Attempts) != 2 || !got[0].Attempts[1].TimedOut {
			t.Fatalf("results %+v, want given up after 2 timed out attempts", got)
		}
		if took := time.Since(start); took > 20*time.Second {
			t.Errorf("took %v: the timeout did not apply", took)
		}
	})
}

func TestSenderOrderAndIndependence(t *testing.T) {
	t.Run("Deliveries to one target go in spool order", func(t *testing.T) {
		recv := newReceiver(t)
		src := newSource(t, target("t", recv.URL, "on_session_end"))
		var want []string
		for i := range 30 {
			kw := protocol.Kwargs{{Key: "n", Value: protocol.Raw(i)}}
			fire(t, src, "on_session_end", kw)
			want = append(want, fmt.Sprint(i))
		}
		drain(t, src.Spool)
		var got []string
		for _, r := range recv.requests() {
			got = append(got, gjson.GetBytes(r.body, "extra.n").String())
		}
		if !slices.Equal(got, want) {
			t.Errorf("order %v, want %v", got, want)
		}
	})
	t.Run("A dead target does not stall the others", func(t *testing.T) {
		dead := newReceiver(t)
		dead.hold = make(chan struct{})
		live := newReceiver(t)
		src := newSource(t, target("dead", dead.URL, "on_session_end"), target("live", live.URL, "on_session_end"))
		for range 5 {
			fire(t, src, "on_session_end", protocol.Kwargs{})
		}
		done := make(chan []Result)
		go func() { done <- drain(t, src.Spool) }()
		deadline := time.Now().Add(20 * time.Second)
		for len(live.requests()) < 5 {
			if time.Now().After(deadline) {
				t.Fatalf("the live target got %d of 5 while the dead one hangs", len(live.requests()))
			}
			time.Sleep(10 * time.Millisecond)
		}
		// The dead target's first request may still be on its way: wait for
		// it rather than assume it came first.
		for len(dead.requests()) < 1 {
			if time.Now().After(deadline) {
				t.Fatal("the dead target's first request never arrived")
			}
			time.Sleep(10 * time.Millisecond)
		}
		if n := len(dead.requests()); n != 1 {
			t.Errorf("the dead target got %d requests, want its first one hanging", n)
		}
		close(dead.hold)
		if got := <-done; len(got) != 10 {
			t.Errorf("%d results, want 10", len(got))
		}
	})
}

func TestSpoolBound(t *testing.T) {
	recv := newReceiver(t)
	src := newSource(t, target("ci", recv.URL, "subagent_stop"))
	src.Spool.Limit = 3
	var warnings []string
	for range 5 {
		for _, r := range fire(t, src, "subagent_stop", protocol.Kwargs{}) {
			warnings = append(warnings, dispatch.Strings(r.Warnings)...)
		}
	}
	pending, _ := src.Spool.Pending()
	if len(pending) != 3 {
		t.Errorf("the spool holds %d, want its bound of 3", len(pending))
	}
	want := `outbound target "ci": the subagent_stop delivery was dropped: the spool already holds 3 deliveries (outbound_spool_limit)`
	if len(warnings) != 2 || !strings.HasPrefix(warnings[0], want) {
		t.Errorf("warnings %q, want two starting %q", warnings, want)
	}
}

func TestConcurrentAddsKeepTheBound(t *testing.T) {
	sp := Spool{Dir: t.TempDir(), Limit: 20}
	tg := target("t", "https://example.com/x", "on_session_end")
	var ok, full atomic.Int32
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			d, err := NewDelivery(tg, "on_session_end", protocol.Kwargs{}, "/", "", false, "v", time.Now())
			if err == nil {
				err = sp.Add(d)
			}
			switch {
			case err == nil:
				ok.Add(1)
			case errors.Is(err, ErrFull):
				full.Add(1)
			default:
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if ok.Load() != 20 || full.Load() != 30 {
		t.Errorf("%d added and %d refused, want 20 and 30", ok.Load(), full.Load())
	}
}

func TestCorruptFilesAreMovedAside(t *testing.T) {
	recv := newReceiver(t)
	src := newSource(t, target("t", recv.URL, "on_session_end"))
	fire(t, src, "on_session_end", protocol.Kwargs{})
	pending, _ := src.Spool.Pending()
	good := pending[0]
	q := src.Spool.queue()
	cut := strings.Replace(good.Name, good.ID, strings.Repeat("a", 32), 1)
	data, _ := os.ReadFile(filepath.Join(q, good.Name))
	for name, content := range map[string]string{
		"garbage.delivery": "not a delivery",
		"00000000000000000001-0123456789abcdef-" + strings.Repeat("b", 32) + ".delivery": "{}\n{}",
		cut: string(data[:len(data)/2]), // a power cut mid-write
	} {
		if err := os.WriteFile(filepath.Join(q, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	got := drain(t, src.Spool)
	var delivered, corrupt int
	for _, r := range got {
		switch r.Status {
		case Delivered:
			delivered++
		case Corrupt:
			corrupt++
			if _, err := os.Stat(r.Aside); err != nil {
				t.Errorf("%s was not moved aside: %v", r.Entry.Name, err)
			}
		}
	}
	if delivered != 1 || corrupt != 3 || src.Spool.Corrupt() != 3 {
		t.Errorf("%d delivered, %d corrupt (%d aside); want 1, 3, 3", delivered, corrupt, src.Spool.Corrupt())
	}
}

func TestSenderLock(t *testing.T) {
	sp := Spool{Dir: t.TempDir()}
	first, err := sp.TryLockSender()
	if err != nil || first == nil {
		t.Fatalf("first lock: %v", err)
	}
	if second, _ := sp.TryLockSender(); second != nil {
		t.Fatal("a second sender got the lock while the first holds it")
	}
	first.WritePID(os.Getpid())
	if pid := sp.SenderPID(); pid != os.Getpid() {
		t.Errorf("sender pid %d, want ours", pid)
	}
	first.Unlock()
	if pid := sp.SenderPID(); pid != 0 {
		t.Errorf("sender pid %d after unlock, want 0", pid)
	}
	again, _ := sp.TryLockSender()
	if again == nil {
		t.Fatal("the lock was not free after Unlock")
	}
	again.Unlock()
}

// TestSenderTakesOverWorkLeftWhileStopping checks the exit protocol: a
// delivery spooled after the sender's last look but before it let go of the
// lock (so the exec that wrote it saw a sender and started none) is still
// delivered.
func TestSenderTakesOverWorkLeftWhileStopping(t *testing.T) {
	recv := newReceiver(t)
	src := newSource(t, target("t", recv.URL, "on_session_end"))
	lock, _ := src.Spool.TryLockSender()
	s := NewSender(src.Spool)
	passes := 0
	s.afterPass = func() {
		passes++
		if passes == 1 {
			fire(t, src, "on_session_end", protocol.Kwargs{})
		}
	}
	if err := s.Run(context.Background(), lock, false); err != nil {
		t.Fatal(err)
	}
	if n := len(recv.requests()); n != 1 || passes != 2 {
		t.Errorf("delivered %d in %d passes, want 1 in 2", n, passes)
	}
	if l, _ := src.Spool.TryLockSender(); l == nil {
		t.Error("the sender kept its lock after Run")
	} else {
		l.Unlock()
	}
}

func TestGetenvLastDefinitionWins(t *testing.T) {
	get := Getenv([]string{"A=1", "B=x", "A=2", "AB=3"})
	if get("A") != "2" || get("B") != "x" || get("C") != "" || get("AB") != "3" {
		t.Errorf("got A=%q B=%q C=%q AB=%q", get("A"), get("B"), get("C"), get("AB"))
	}
}

// FuzzDecode checks that any spool file content decodes without a panic, and
// that what decodes is a delivery the sender can post.
// A delivery's headers survive the spool; a spool file whose headers a
// request could not carry is corrupt.
func TestDeliveryHeaders(t *testing.T) {
	d, _ := NewDelivery(target("t", "https://example.com/x", "on_session_end"), "on_session_end", protocol.Kwargs{}, "/", "", false, "v", time.Unix(1, 0))
	d.Headers = []Header{{Name: "x-api-key", Value: "k=1"}, {Name: "X-Team", Value: "a b"}}
	back, err := Decode(d.Encode())
	if err != nil || len(back.Headers) != 2 || back.Headers[0] != d.Headers[0] || back.Headers[1] != d.Headers[1] {
		t.Fatalf("headers read back as %q (%v), want %q", back.Headers, err, d.Headers)
	}
	for _, h := range []Header{{Name: "bad name", Value: "v"}, {Name: "", Value: "v"}, {Name: "x", Value: "a\r\nInjected: 1"}, {Name: "é", Value: "v"}} {
		d.Headers = []Header{h}
		if _, err := Decode(d.Encode()); !errors.Is(err, ErrCorrupt) {
			t.Errorf("header %q: Decode gave %v, want ErrCorrupt", h, err)
		}
	}
}

func FuzzDecode(f *testing.F) {
	tg := target("t", "https://example.com/x", "on_session_end")
	d, _ := NewDelivery(tg, "on_session_end", protocol.Kwargs{{Key: "a", Value: protocol.Raw(1)}}, "/", "k", true, "v", time.Unix(1, 0))
	f.Add(d.Encode())
	d.Headers = []Header{{Name: "x-api-key", Value: "k"}}
	f.Add(d.Encode())
	f.Add([]byte("{}\n{}"))
	f.Add([]byte(`{"v":1,"target":"t","url":"ftp://x","event":"e","delivery_id":"` + strings.Repeat("a", 32) + `","created":"2026-01-01T00:00:00Z","timeout_ms":5,"user_agent":"u"}` + "\n{}"))
	f.Add([]byte("\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Decode(data)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v is not ErrCorrupt", err)
			}
			return
		}
		if checkURL(d.URL) != nil || !isHexID(d.ID) || d.Timeout < config.MinOutboundTimeout || d.Timeout > config.MaxOutboundTimeout {
			t.Fatalf("decoded an unusable delivery %+v", d)
		}
		if _, err := http.NewRequest(http.MethodPost, d.URL, nil); err != nil {
			t.Fatalf("decoded url %q cannot be posted: %v", d.URL, err)
		}
		req, _ := http.NewRequest(http.MethodPost, d.URL, nil)
		for _, h := range d.Headers {
			if CheckHeader(h) != nil || len(d.Headers) > MaxHeaders {
				t.Fatalf("decoded an unusable header %q", h)
			}
			req.Header.Add(h.Name, h.Value)
		}
		if err := req.Header.Write(io.Discard); err != nil {
			t.Fatalf("decoded headers cannot be written: %v", err)
		}
		again, err := Decode(d.Encode())
		if err != nil || string(again.Body) != string(d.Body) || again.ID != d.ID || len(again.Headers) != len(d.Headers) {
			t.Fatalf("encode/decode does not round-trip: %v", err)
		}
	})
}

func TestSpoolCount(t *testing.T) {
	sp := Spool{Dir: t.TempDir(), Limit: 3}
	tg := target("t", "https://example.com/x", "on_session_end")
	add := func() error {
		d, err := NewDelivery(tg, "on_session_end", protocol.Kwargs{}, "/", "", false, "v", time.Now())
		if err != nil {
			t.Fatal(err)
		}
		return sp.Add(d)
	}
	setCount := func(text string) {
		if err := os.WriteFile(sp.addLock(), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for range 3 {
		if err := add(); err != nil {
			t.Fatal(err)
		}
	}
	if err := add(); !errors.Is(err, ErrFull) {
		t.Fatalf("a fourth delivery: %v, want ErrFull", err)
	}
	pending, _ := sp.Pending()
	if err := sp.Remove(pending[0]); err != nil {
		t.Fatal(err)
	}
	if err := add(); err != nil {
		t.Fatalf("after a removal there is room again: %v", err)
	}
	// A count left too high (a sender that died between removing and
	// counting) heals before the spool is called full.
	pending, _ = sp.Pending()
	os.Remove(filepath.Join(sp.queue(), pending[0].Name))
	setCount(fmt.Sprintf("%020d\n", 3))
	if err := add(); err != nil {
		t.Errorf("a count too high by one refused a delivery: %v", err)
	}
	// A broken count is recounted from the directory.
	setCount("garbage")
	if err := add(); !errors.Is(err, ErrFull) {
		t.Errorf("with 3 files and a broken count: %v, want ErrFull", err)
	}
	// A count too low is fixed by Recount, which a starting sender runs.
	setCount(fmt.Sprintf("%020d\n", 0))
	if err := sp.Recount(); err != nil {
		t.Fatal(err)
	}
	if err := add(); !errors.Is(err, ErrFull) {
		t.Errorf("after Recount: %v, want ErrFull", err)
	}
}

func TestAFullSpoolStillStartsASender(t *testing.T) {
	src := newSource(t, target("ci", "https://example.com/x", "on_session_end"))
	src.Spool.Limit = 1
	ev, _ := protocol.Lookup("on_session_end")
	var starts atomic.Int32
	src.StartSender = func([]string) error { starts.Add(1); return nil }
	d := dispatch.Dispatcher{Sources: []dispatch.Source{src}}
	for range 2 {
		d.Fire(context.Background(), dispatch.Call{Event: ev, Kwargs: protocol.Kwargs{}, Cwd: "/"})
	}
	if starts.Load() != 2 {
		t.Errorf("a sender was asked for %d times, want 2: the sender that filled the spool may be dead", starts.Load())
	}
}

// storedCount is the count kept in spool.lock.
func storedCount(t *testing.T, sp Spool) int {
	t.Helper()
	f, err := os.Open(sp.addLock())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n, ok := readCount(f)
	if !ok {
		t.Fatal("spool.lock holds no count")
	}
	return n
}

func TestEventFiles(t *testing.T) {
	t.Run("An event with several targets makes one file, delivered in order per target", func(t *testing.T) {
		a, b := newReceiver(t), newReceiver(t)
		src := newSource(t, target("a", a.URL, "subagent_stop", "on_session_end"), target("b", b.URL, "subagent_stop"))
		for i, event := range []string{"subagent_stop", "on_session_end", "subagent_stop"} {
			fire(t, src, event, protocol.Kwargs{{Key: "n", Value: protocol.Raw(i)}})
		}
		pending, _ := src.Spool.Pending()
		var kinds []string
		for _, e := range pending {
			kinds = append(kinds, fmt.Sprintf("event=%v count=%d", e.Event, e.Count))
		}
		if want := []string{"event=true count=2", "event=false count=1", "event=true count=2"}; !slices.Equal(kinds, want) {
			t.Fatalf("spool files %v, want %v", kinds, want)
		}
		if n := storedCount(t, src.Spool); n != 5 {
			t.Errorf("count %d, want 5", n)
		}
		if ds, err := src.Spool.Contents(pending[0]); err != nil || len(ds) != 2 || ds[0].Target != "a" || ds[1].Target != "b" {
			t.Errorf("contents of the event file: %v %+v", err, ds)
		}
		if got := drain(t, src.Spool); len(got) != 5 {
			t.Fatalf("%d results, want 5", len(got))
		}
		order := func(r *receiver) (out []string) {
			for _, q := range r.requests() {
				out = append(out, gjson.GetBytes(q.body, "extra.n").String())
			}
			return out
		}
		if got := order(a); !slices.Equal(got, []string{"0", "1", "2"}) {
			t.Errorf("a got %v, want 0 1 2", got)
		}
		if got := order(b); !slices.Equal(got, []string{"0", "2"}) {
			t.Errorf("b got %v, want 0 2", got)
		}
		if n := storedCount(t, src.Spool); n != 0 {
			t.Errorf("count %d after the drain, want 0", n)
		}
	})
	t.Run("Without room for all, the deliveries that fit are kept", func(t *testing.T) {
		src := newSource(t, target("a", "https://a.example", "on_session_end"), target("b", "https://b.example", "on_session_end"), target("c", "https://c.example", "on_session_end"))
		src.Spool.Limit = 4
		fire(t, src, "on_session_end", protocol.Kwargs{}) // 3: one event file
		results := fire(t, src, "on_session_end", protocol.Kwargs{})
		var statuses []dispatch.Status
		for _, r := range results {
			statuses = append(statuses, r.Status)
		}
		if want := []dispatch.Status{dispatch.StatusOK, dispatch.StatusError, dispatch.StatusError}; !slices.Equal(statuses, want) {
			t.Errorf("statuses %v, want %v", statuses, want)
		}
		if !strings.Contains(results[1].Warnings[0].String(), `outbound target "b": the on_session_end delivery was dropped: the spool already holds 4`) {
			t.Errorf("warning %q", results[1].Warnings)
		}
		if n := storedCount(t, src.Spool); n != 4 {
			t.Errorf("count %d, want 4", n)
		}
	})
	t.Run("Splitting again after a crash halfway makes the same files", func(t *testing.T) {
		src := newSource(t, target("a", "https://a.example", "on_session_end"), target("b", "https://b.example", "on_session_end"))
		fire(t, src, "on_session_end", protocol.Kwargs{})
		pending, _ := src.Spool.Pending()
		ds, err := src.Spool.Contents(pending[0])
		if err != nil {
			t.Fatal(err)
		}
		// The crash left the first delivery split out, and the event file.
		if err := os.WriteFile(filepath.Join(src.Spool.queue(), entryName(ds[0])), ds[0].Encode(), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := src.Spool.Split(pending[0]); err != nil {
			t.Fatal(err)
		}
		pending, _ = src.Spool.Pending()
		if len(pending) != 2 || pending[0].Event || pending[1].Event {
			t.Errorf("after the split: %+v, want the 2 deliveries", pending)
		}
		if n := storedCount(t, src.Spool); n != 2 {
			t.Errorf("count %d, want 2", n)
		}
	})
	t.Run("A corrupt event file is moved aside and leaves the count", func(t *testing.T) {
		sp := Spool{Dir: t.TempDir()}
		name := eventName(time.Now(), 3, strings.Repeat("c", 32))
		if err := os.MkdirAll(sp.queue(), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(sp.queue(), name), []byte(`{"v":1,"sizes":[1,1,1]}`+"\nabc"), 0o600); err != nil {
			t.Fatal(err)
		}
		got := drain(t, sp)
		if len(got) != 1 || got[0].Status != Corrupt || sp.Corrupt() != 1 {
			t.Fatalf("results %+v, want one corrupt file moved aside", got)
		}
		if n := storedCount(t, sp); n != 0 {
			t.Errorf("count %d, want 0", n)
		}
	})
}

// FuzzDecodeEvent checks that any event file decodes without a panic, to
// deliveries that encode back to the same file.
func FuzzDecodeEvent(f *testing.F) {
	tg := target("t", "https://example.com/x", "on_session_end")
	var ds []Delivery
	for range 2 {
		d, _ := NewDelivery(tg, "on_session_end", protocol.Kwargs{}, "/", "k", true, "v", time.Unix(1, 0))
		ds = append(ds, d)
	}
	a, b := ds[0].Encode(), ds[1].Encode()
	f.Add(append([]byte(fmt.Sprintf(`{"v":1,"sizes":[%d,%d]}`+"\n", len(a), len(b))), append(a, b...)...), 2)
	f.Add([]byte(`{"v":1,"sizes":[-1,99999999999]}`+"\n"), 2)
	f.Fuzz(func(t *testing.T, data []byte, n int) {
		ds, err := decodeEvent(data, n)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v is not ErrCorrupt", err)
			}
			return
		}
		if len(ds) != n {
			t.Fatalf("%d deliveries, the name says %d", len(ds), n)
		}
	})
}
