package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/noora-hooks/noora-hooks/internal/dispatch"

	"github.com/noora-hooks/noora-hooks/client"
	"github.com/noora-hooks/noora-hooks/protocol"
)

// fakeBackend answers every event with a context answer naming itself, so a
// test can tell which generation answered.
type fakeBackend struct {
	name     string
	accept   bool
	warnings []string
	// block, when set, holds Fire until it is closed; started is signalled
	// when Fire begins.
	block   chan struct{}
	started chan struct{}
	closed  atomic.Bool
	calls   atomic.Int64
	lastCwd atomic.Value
	ctxErr  atomic.Value
}

func (b *fakeBackend) Fire(ctx context.Context, event protocol.Event, kw protocol.Kwargs, cwd string) dispatch.Report {
	b.calls.Add(1)
	b.lastCwd.Store(cwd)
	if b.started != nil {
		b.started <- struct{}{}
	}
	if b.block != nil {
		select {
		case <-b.block:
		case <-ctx.Done():
			b.ctxErr.Store(ctx.Err())
		}
	}
	res := dispatch.Result{
		HookInfo: dispatch.HookInfo{Source: "shell", Name: b.name},
		Status:   dispatch.StatusOK,
		Answer:   protocol.Answer{Kind: protocol.Context, Text: b.name},
		Warnings: warnings(b.warnings),
	}
	return dispatch.Report{
		Combined: protocol.Combine(event.Name, kw, []protocol.Answer{res.Answer}),
		Results:  []dispatch.Result{res},
	}
}

func (b *fakeBackend) Hooks() []byte      { return []byte(`{"shell_hooks":[]}` + "\n") }
func (b *fakeBackend) AcceptsHooks() bool { return b.accept }
func (b *fakeBackend) Close() error {
	if b.closed.Swap(true) {
		panic("closed twice")
	}
	return nil
}

// logBuf collects log lines.
type logBuf struct {
	mu    sync.Mutex
	lines []string
}

func (l *logBuf) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

func (l *logBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// listen makes a server for opts on a unix socket in a temp dir and serves
// it; the caller shuts it down.
func listen(t *testing.T, opts Options) (*Server, *Listener) {
	t.Helper()
	if opts.MaxPayload == 0 {
		opts.MaxPayload = 1 << 20
	}
	if opts.Cwd == "" {
		opts.Cwd = "/"
	}
	srv, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	l, err := Listen(client.Addr{Network: "unix", Address: filepath.Join(shortTempDir(t), "s.sock")}, false)
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(l)
	return srv, l
}

// start is listen with a shutdown at the end of the test.
func start(t *testing.T, opts Options) (*Server, client.Addr) {
	t.Helper()
	srv, l := listen(t, opts)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	})
	return srv, l.Address
}

// shortTempDir is a temp dir with a path short enough for a socket.
func shortTempDir(t *testing.T) string {
	dir, err := os.MkdirTemp("", "nh")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func static(b Backend) func() (Backend, error) {
	return func() (Backend, error) { return b, nil }
}

// request sends one raw request to addr.
func request(t *testing.T, addr client.Addr, method, path, body string, header map[string]string) (*http.Response, string) {
	t.Helper()
	resp, data, err := tryRequest(addr, method, path, body, header)
	if err != nil {
		t.Fatal(err)
	}
	return resp, data
}

// tryRequest is request for goroutines other than the test's.
func tryRequest(addr client.Addr, method, path, body string, header map[string]string) (*http.Response, string, error) {
	hc := &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, addr.Network, addr.Address)
		},
	}}
	host := "x"
	if addr.Network == "tcp" {
		host = addr.Address
	}
	req, err := http.NewRequest(method, "http://"+host+path, strings.NewReader(body))
	if err != nil {
		return nil, "", err
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return resp, string(data), err
}

func TestRequests(t *testing.T) {
	b := &fakeBackend{name: "one"}
	_, addr := start(t, Options{Load: static(b), MaxPayload: 1024, Config: "/c/config.yaml", Home: "/c"})
	valid := mustJSON(t, protocol.EventNames())
	tests := []struct {
		name           string
		method, path   string
		body           string
		header         map[string]string
		wantCode       int
		wantBody       string // exact, or a substring when wantContains
		wantContains   bool
		wantAllow      string
		wantBackendRan bool
	}{
		{name: "An event is answered like exec", method: "POST", path: "/v1/events/pre_llm_call", body: `{"session_id":"s"}`,
			wantCode: 200, wantBody: `{"event":"pre_llm_call","context":"one"}` + "\n", wantBackendRan: true},
		{name: "An empty body is no kwargs", method: "POST", path: "/v1/events/pre_llm_call",
			wantCode: 200, wantBody: `{"event":"pre_llm_call","context":"one"}` + "\n", wantBackendRan: true},
		{name: "A trace lists the hooks", method: "POST", path: "/v1/events/pre_llm_call?trace=1", body: `{}`,
			wantCode: 200, wantBody: `"hooks":[{"source":"shell","command":"one"`, wantContains: true, wantBackendRan: true},
		{name: "Malformed JSON is a 400 with a JSON error", method: "POST", path: "/v1/events/pre_llm_call", body: `{"a":`,
			wantCode: 400, wantBody: `{"error":"payload: invalid JSON: unexpected end of JSON input; the payload must be the event's keyword arguments as one JSON object`, wantContains: true},
		{name: "A JSON array is a 400", method: "POST", path: "/v1/events/pre_llm_call", body: `[1,2]`,
			wantCode: 400, wantBody: `{"error":"payload is not a JSON object: got an array;`, wantContains: true},
		{name: "A body over the bound is a 413", method: "POST", path: "/v1/events/pre_llm_call", body: `{"a":"` + strings.Repeat("x", 2000) + `"}`,
			wantCode: 413, wantBody: `{"error":"payload larger than 1024 bytes"}` + "\n"},
		{name: "An unknown event is a 404 with the valid list", method: "POST", path: "/v1/events/pre_tool_cal", body: `{}`,
			wantCode: 404, wantBody: `{"error":"unknown event \"pre_tool_cal\"; did you mean \"pre_tool_call\"?","valid_events":` + valid + "}\n"},
		{name: "GET on an event is a 405", method: "GET", path: "/v1/events/pre_llm_call",
			wantCode: 405, wantBody: `{"error":"method GET not allowed on /v1/events/pre_llm_call; use POST"}` + "\n", wantAllow: "POST"},
		{name: "POST on the hook listing is a 405", method: "POST", path: "/v1/hooks",
			wantCode: 405, wantBody: `use GET or HEAD`, wantContains: true, wantAllow: "GET, HEAD"},
		{name: "The hook listing is the backend's", method: "GET", path: "/v1/hooks",
			wantCode: 200, wantBody: `{"shell_hooks":[]}` + "\n"},
		{name: "Health answers ok", method: "GET", path: "/healthz",
			wantCode: 200, wantBody: `{"status":"ok"}` + "\n"},
		{name: "An unknown path is a 404 naming the endpoints", method: "GET", path: "/v2/x",
			wantCode: 404, wantBody: `there are POST /v1/events/{event}, GET /v1/hooks and GET /healthz`, wantContains: true},
		{name: "A relative cwd is a 400", method: "POST", path: "/v1/events/pre_llm_call", header: map[string]string{client.HeaderCwd: "rel/dir"},
			wantCode: 400, wantBody: `is not an absolute path`, wantContains: true},
		{name: "A cwd that does not exist is a 400", method: "POST", path: "/v1/events/pre_llm_call", header: map[string]string{client.HeaderCwd: "/no/such/dir"},
			wantCode: 400, wantBody: `no such file or directory`, wantContains: true},
		{name: "Another config is a 409", method: "POST", path: "/v1/events/pre_llm_call", header: map[string]string{client.HeaderConfig: "/other/config.yaml"},
			wantCode: 409, wantBody: `{"error":"this server serves config /c/config.yaml, not /other/config.yaml"}` + "\n"},
		{name: "The same config is served", method: "POST", path: "/v1/events/pre_llm_call", header: map[string]string{client.HeaderConfig: "/c/./config.yaml", client.HeaderHome: "/c/"},
			wantCode: 200, wantBody: `{"event":"pre_llm_call","context":"one"}` + "\n", wantBackendRan: true},
		{name: "Another home is a 409", method: "POST", path: "/v1/events/pre_llm_call", header: map[string]string{client.HeaderHome: "/d"},
			wantCode: 409, wantBody: `this server serves home /c, not /d`, wantContains: true},
		{name: "Asking for accept-hooks from a server that does not is a 409", method: "POST", path: "/v1/events/pre_llm_call", header: map[string]string{client.HeaderAcceptHooks: "1"},
			wantCode: 409, wantBody: `--accept-hooks`, wantContains: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := b.calls.Load()
			resp, body := request(t, addr, tt.method, tt.path, tt.body, tt.header)
			if resp.StatusCode != tt.wantCode {
				t.Errorf("status %d, want %d (body %s)", resp.StatusCode, tt.wantCode, body)
			}
			if tt.wantContains && !strings.Contains(body, tt.wantBody) || !tt.wantContains && body != tt.wantBody {
				t.Errorf("body\n%s\nwant\n%s", body, tt.wantBody)
			}
			if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			if got := resp.Header.Get("Allow"); got != tt.wantAllow {
				t.Errorf("Allow %q, want %q", got, tt.wantAllow)
			}
			if ran := b.calls.Load() > before; ran != tt.wantBackendRan {
				t.Errorf("backend ran: %v, want %v", ran, tt.wantBackendRan)
			}
		})
	}
}

func mustJSON(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestCwdReachesTheBackend(t *testing.T) {
	b := &fakeBackend{name: "one"}
	_, addr := start(t, Options{Load: static(b), Cwd: "/"})
	dir := t.TempDir()
	request(t, addr, "POST", "/v1/events/on_session_start", "{}", map[string]string{client.HeaderCwd: dir})
	if got := b.lastCwd.Load(); got != dir {
		t.Errorf("cwd %v, want %s", got, dir)
	}
	request(t, addr, "POST", "/v1/events/on_session_start?cwd="+dir, "{}", nil)
	if got := b.lastCwd.Load(); got != dir {
		t.Errorf("cwd from the query %v, want %s", got, dir)
	}
	request(t, addr, "POST", "/v1/events/on_session_start", "{}", nil)
	if got := b.lastCwd.Load(); got != "/" {
		t.Errorf("default cwd %v, want serve's /", got)
	}
}

func TestWarningsTravelInHeaders(t *testing.T) {
	warnings := []string{
		`hook "x": exited with status 3: line one` + "\nline two",
		"non-ASCII: café ✓ 😀 and a tab\t",
	}
	b := &fakeBackend{name: "one", warnings: warnings}
	var log logBuf
	_, addr := start(t, Options{Load: static(b), Logf: log.logf})
	answer, err := client.New(addr, "").Fire(context.Background(), "pre_llm_call", []byte(`{}`), client.FireOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(answer.Warnings, "|") != strings.Join(warnings, "|") {
		t.Errorf("warnings %q, want %q", answer.Warnings, warnings)
	}
	if !strings.Contains(log.String(), "warning: "+warnings[0]) {
		t.Errorf("serve's log misses the warning:\n%s", log.String())
	}
	for _, w := range warnings {
		if v := asciiJSON(w); strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 || r > 0x7e }) {
			t.Errorf("header value %q is not printable ASCII", v)
		}
	}
}

func TestTokenOnTCP(t *testing.T) {
	b := &fakeBackend{name: "one"}
	srv, err := New(Options{Load: static(b), Token: "s3cret-token", MaxPayload: 1 << 20, Cwd: "/"})
	if err != nil {
		t.Fatal(err)
	}
	l, err := Listen(client.Addr{Network: "tcp", Address: "127.0.0.1:0"}, false)
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(l)
	defer srv.Shutdown(context.Background())
	addr := l.Address

	tests := []struct {
		name     string
		method   string
		path     string
		auth     string
		wantCode int
	}{
		{"An event without a token is refused", "POST", "/v1/events/pre_llm_call", "", 401},
		{"An event with a wrong token is refused", "POST", "/v1/events/pre_llm_call", "Bearer wrong", 401},
		{"A token without the Bearer scheme is refused", "POST", "/v1/events/pre_llm_call", "s3cret-token", 401},
		{"The hook listing without a token is refused", "GET", "/v1/hooks", "", 401},
		{"An event with the token is answered", "POST", "/v1/events/pre_llm_call", "Bearer s3cret-token", 200},
		{"Health needs no token", "GET", "/healthz", "", 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := b.calls.Load()
			h := map[string]string{}
			if tt.auth != "" {
				h["Authorization"] = tt.auth
			}
			resp, body := request(t, addr, tt.method, tt.path, "{}", h)
			if resp.StatusCode != tt.wantCode {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.wantCode, body)
			}
			if tt.wantCode == 401 {
				if b.calls.Load() != before {
					t.Error("the backend fired for a caller without the token")
				}
				if !strings.Contains(body, "bearer token") || resp.Header.Get("WWW-Authenticate") == "" {
					t.Errorf("401 without a clear error: %s %v", body, resp.Header)
				}
			}
		})
	}
	// The client sends the token it is given.
	if _, err := client.New(addr, "s3cret-token").Fire(context.Background(), "pre_llm_call", nil, client.FireOptions{}); err != nil {
		t.Errorf("client with the token: %v", err)
	}
	_, err = client.New(addr, "").Fire(context.Background(), "pre_llm_call", nil, client.FireOptions{})
	var se *client.StatusError
	if !errors.As(err, &se) || se.Code != 401 {
		t.Errorf("client without the token: %v, want a 401 StatusError", err)
	}
}

func TestListen(t *testing.T) {
	t.Run("The socket has mode 0600", func(t *testing.T) {
		path := filepath.Join(shortTempDir(t), "s.sock")
		l, err := Listen(client.Addr{Network: "unix", Address: path}, false)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode()&os.ModeSocket == 0 || st.Mode().Perm() != 0o600 {
			t.Errorf("mode %v, want a socket with 0600", st.Mode())
		}
	})
	t.Run("A missing parent directory is made 0700", func(t *testing.T) {
		dir := filepath.Join(shortTempDir(t), "h")
		l, err := Listen(client.Addr{Network: "unix", Address: filepath.Join(dir, "s.sock")}, false)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		st, _ := os.Stat(dir)
		if st.Mode().Perm() != 0o700 {
			t.Errorf("parent mode %v, want 0700", st.Mode().Perm())
		}
	})
	t.Run("Close removes the socket", func(t *testing.T) {
		path := filepath.Join(shortTempDir(t), "s.sock")
		l, err := Listen(client.Addr{Network: "unix", Address: path}, false)
		if err != nil {
			t.Fatal(err)
		}
		l.Close()
		if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("socket still there after Close: %v", err)
		}
	})
	t.Run("A live socket is not taken over", func(t *testing.T) {
		path := filepath.Join(shortTempDir(t), "s.sock")
		l, err := Listen(client.Addr{Network: "unix", Address: path}, false)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		_, err = Listen(client.Addr{Network: "unix", Address: path}, false)
		if err == nil || !strings.Contains(err.Error(), "another server is answering there") {
			t.Errorf("second Listen: %v", err)
		}
	})
	t.Run("A stale socket is replaced", func(t *testing.T) {
		path := filepath.Join(shortTempDir(t), "s.sock")
		stale, err := net.Listen("unix", path)
		if err != nil {
			t.Fatal(err)
		}
		stale.(*net.UnixListener).SetUnlinkOnClose(false)
		stale.Close() // the file stays, nobody answers: a server that died
		l, err := Listen(client.Addr{Network: "unix", Address: path}, false)
		if err != nil {
			t.Fatalf("Listen over a stale socket: %v", err)
		}
		l.Close()
	})
	t.Run("A file that is not a socket is left alone", func(t *testing.T) {
		path := filepath.Join(shortTempDir(t), "s.sock")
		os.WriteFile(path, []byte("mine"), 0o600)
		_, err := Listen(client.Addr{Network: "unix", Address: path}, false)
		if err == nil || !strings.Contains(err.Error(), "is not a socket") {
			t.Errorf("Listen: %v", err)
		}
		if data, _ := os.ReadFile(path); string(data) != "mine" {
			t.Error("the file was touched")
		}
	})
	t.Run("A socket path too long is refused with the limit", func(t *testing.T) {
		path := "/tmp/" + strings.Repeat("d", 110) + "/s.sock"
		_, err := Listen(client.Addr{Network: "unix", Address: path}, false)
		if err == nil || !strings.Contains(err.Error(), "holds at most 107") {
			t.Errorf("Listen: %v", err)
		}
	})
	t.Run("A non-loopback TCP address is refused", func(t *testing.T) {
		_, err := Listen(client.Addr{Network: "tcp", Address: "0.0.0.0:0"}, false)
		if !errors.Is(err, ErrNotLoopback) || !strings.Contains(err.Error(), "--allow-remote") {
			t.Errorf("Listen: %v", err)
		}
	})
	t.Run("A loopback TCP address is served", func(t *testing.T) {
		l, err := Listen(client.Addr{Network: "tcp", Address: "127.0.0.1:0"}, false)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		if !strings.HasPrefix(l.Address.Address, "127.0.0.1:") || strings.HasSuffix(l.Address.Address, ":0") {
			t.Errorf("address %s: want the port chosen", l.Address)
		}
	})
}

func TestReload(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	allow := filepath.Join(dir, "allowlist.json")
	write := func(name, content string) {
		t.Helper()
		// A new file each time, as editors that save by renaming do; the
		// size changes too, so the change shows whatever the clock's grain.
		tmp := name + ".tmp"
		if err := os.WriteFile(tmp, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, name); err != nil {
			t.Fatal(err)
		}
	}
	write(cfg, "v1")
	var (
		mu       sync.Mutex
		backends []*fakeBackend
	)
	load := func() (Backend, error) {
		data, err := os.ReadFile(cfg)
		if err != nil {
			return nil, err
		}
		if strings.HasPrefix(string(data), "broken") {
			return nil, errors.New("config.yaml:1:1: did not find expected key")
		}
		mu.Lock()
		defer mu.Unlock()
		b := &fakeBackend{name: fmt.Sprintf("%s#%d", data, len(backends))}
		backends = append(backends, b)
		return b, nil
	}
	var log logBuf
	_, addr := start(t, Options{Load: load, Watch: []string{cfg, allow}, Logf: log.logf})
	answer := func() string {
		t.Helper()
		_, body := request(t, addr, "POST", "/v1/events/pre_llm_call", "{}", nil)
		var v struct{ Context string }
		if err := json.Unmarshal([]byte(body), &v); err != nil {
			t.Fatalf("answer %q: %v", body, err)
		}
		return v.Context
	}
	steps := []struct {
		name   string
		change func()
		want   string
		log    string
	}{
		{"The first config answers", func() {}, "v1#0", ""},
		{"An unchanged config is not reloaded", func() {}, "v1#0", ""},
		{"A changed config answers the next event", func() { write(cfg, "v2 longer") }, "v2 longer#1", "reloaded: " + cfg + " changed"},
		{"A broken config keeps the last good one and says why", func() { write(cfg, "broken: [") }, "v2 longer#1",
			"error: reload after " + cfg + " changed: config.yaml:1:1: did not find expected key; still serving the last good configuration"},
		{"The broken config is reported once, not per event", func() {}, "v2 longer#1", ""},
		{"The mended config answers", func() { write(cfg, "v3") }, "v3#2", "reloaded: " + cfg + " changed"},
		{"A changed allowlist is read again", func() { write(allow, `{"approvals":[]}`) }, "v3#3", "reloaded: " + allow + " changed"},
		{"A removed allowlist is a change too", func() { os.Remove(allow) }, "v3#4", "reloaded: " + allow + " changed"},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			before := len(log.lines)
			st.change()
			if got := answer(); got != st.want {
				t.Errorf("answer from %q, want %q", got, st.want)
			}
			log.mu.Lock()
			added := strings.Join(log.lines[before:], "\n")
			log.mu.Unlock()
			if added != st.log {
				t.Errorf("log %q, want %q", added, st.log)
			}
		})
	}
	// Replaced backends are closed once idle; the current one is not.
	mu.Lock()
	defer mu.Unlock()
	for i, b := range backends {
		if want := i < len(backends)-1; b.closed.Load() != want {
			t.Errorf("backend %s closed: %v, want %v", b.name, b.closed.Load(), want)
		}
	}
}

func TestReplacedBackendClosesAfterItsLastEvent(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	os.WriteFile(cfg, []byte("a"), 0o600)
	first := &fakeBackend{name: "first", block: make(chan struct{}), started: make(chan struct{}, 1)}
	second := &fakeBackend{name: "second"}
	n := 0
	load := func() (Backend, error) {
		n++
		if n == 1 {
			return first, nil
		}
		return second, nil
	}
	_, addr := start(t, Options{Load: load, Watch: []string{cfg}})
	done := make(chan string)
	go func() {
		_, body, err := tryRequest(addr, "POST", "/v1/events/pre_llm_call", "{}", nil)
		if err != nil {
			t.Error(err)
		}
		done <- body
	}()
	<-first.started
	os.WriteFile(cfg, []byte("bb"), 0o600)
	if _, body := request(t, addr, "POST", "/v1/events/pre_llm_call", "{}", nil); !strings.Contains(body, "second") {
		t.Errorf("after the change: %s", body)
	}
	if first.closed.Load() {
		t.Error("the replaced backend was closed while an event still used it")
	}
	close(first.block)
	if body := <-done; !strings.Contains(body, `"context":"first"`) {
		t.Errorf("the event in flight got %s", body)
	}
	if !first.closed.Load() {
		t.Error("the replaced backend was not closed after its last event")
	}
}

func TestShutdownDrainsEventsInFlight(t *testing.T) {
	b := &fakeBackend{name: "slow", block: make(chan struct{}), started: make(chan struct{}, 8)}
	srv, l := listen(t, Options{Load: static(b)})
	const events = 3
	answers := make(chan string, events)
	for i := 0; i < events; i++ {
		go func() {
			_, body, err := tryRequest(l.Address, "POST", "/v1/events/pre_llm_call", "{}", nil)
			if err != nil {
				t.Error(err)
			}
			answers <- body
		}()
	}
	for i := 0; i < events; i++ {
		<-b.started
	}
	shut := make(chan error)
	go func() { shut <- srv.Shutdown(context.Background()) }()
	select {
	case err := <-shut:
		t.Fatalf("Shutdown returned (%v) while events were in flight", err)
	case <-time.After(200 * time.Millisecond):
	}
	if _, err := net.Dial("unix", l.Address.Address); err == nil {
		t.Error("a new connection was accepted after Shutdown began")
	}
	close(b.block)
	for i := 0; i < events; i++ {
		if body := <-answers; body != `{"event":"pre_llm_call","context":"slow"}`+"\n" {
			t.Errorf("event in flight got %q", body)
		}
	}
	select {
	case err := <-shut:
		if err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Shutdown did not return after the events were answered")
	}
	if !b.closed.Load() {
		t.Error("the backend was not closed at shutdown")
	}
}

func TestForcedShutdownCancelsHooks(t *testing.T) {
	b := &fakeBackend{name: "stuck", block: make(chan struct{}), started: make(chan struct{}, 1)}
	srv, l := listen(t, Options{Load: static(b)})
	answered := make(chan int)
	go func() {
		resp, _, err := tryRequest(l.Address, "POST", "/v1/events/pre_llm_call", "{}", nil)
		if err != nil {
			t.Error(err)
			answered <- 0
			return
		}
		answered <- resp.StatusCode
	}()
	<-b.started
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // a second signal: stop waiting
	srv.Shutdown(ctx)
	if err, _ := b.ctxErr.Load().(error); !errors.Is(err, context.Canceled) {
		t.Errorf("the hooks' context ended with %v, want Canceled", err)
	}
	select {
	case code := <-answered:
		if code != 200 {
			t.Errorf("cancelled event answered %d, want 200 (its hooks gave no answer)", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the cancelled event was never answered")
	}
}

func TestCheckEveryBoundsHowOftenFilesAreLookedAt(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	os.WriteFile(cfg, []byte("v1"), 0o600)
	load := func() (Backend, error) {
		data, err := os.ReadFile(cfg)
		return &fakeBackend{name: string(data)}, err
	}
	answer := func(addr client.Addr, cwd string) (int, string) {
		t.Helper()
		resp, body := request(t, addr, "POST", "/v1/events/pre_llm_call", "{}", map[string]string{client.HeaderCwd: cwd})
		return resp.StatusCode, body
	}
	work := t.TempDir()

	t.Run("Within the interval a change is not looked for", func(t *testing.T) {
		os.WriteFile(cfg, []byte("v1"), 0o600)
		_, addr := start(t, Options{Load: load, Watch: []string{cfg}, CheckEvery: time.Hour})
		if _, body := answer(addr, work); !strings.Contains(body, `"v1"`) {
			t.Fatalf("first answer %s", body)
		}
		os.WriteFile(cfg, []byte("v2, longer"), 0o600)
		if _, body := answer(addr, work); !strings.Contains(body, `"v1"`) {
			t.Errorf("the change was looked for within the hour: %s", body)
		}
		// The working directory found a moment ago is trusted too.
		gone := filepath.Join(t.TempDir(), "gone")
		os.Mkdir(gone, 0o700)
		if code, body := answer(addr, gone); code != 200 {
			t.Fatalf("existing cwd: %d %s", code, body)
		}
		os.Remove(gone)
		if code, _ := answer(addr, gone); code != 200 {
			t.Errorf("a cwd checked within the interval was checked again: %d", code)
		}
	})
	t.Run("After the interval the change counts", func(t *testing.T) {
		os.WriteFile(cfg, []byte("v1"), 0o600)
		_, addr := start(t, Options{Load: load, Watch: []string{cfg}, CheckEvery: 50 * time.Millisecond})
		answer(addr, work)
		os.WriteFile(cfg, []byte("v2, longer"), 0o600)
		deadline := time.Now().Add(5 * time.Second)
		for {
			if _, body := answer(addr, work); strings.Contains(body, `"v2, longer"`) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the change was not seen within 5 s")
			}
			time.Sleep(10 * time.Millisecond)
		}
		gone := filepath.Join(t.TempDir(), "gone")
		os.Mkdir(gone, 0o700)
		answer(addr, gone)
		os.Remove(gone)
		time.Sleep(100 * time.Millisecond)
		if code, body := answer(addr, gone); code != 400 {
			t.Errorf("a removed cwd after the interval: %d %s, want 400", code, body)
		}
	})
}

func warnings(msgs []string) []dispatch.Warning {
	out := make([]dispatch.Warning, len(msgs))
	for i, m := range msgs {
		out[i] = dispatch.Warn(m)
	}
	return out
}
