// Package server is the HTTP side of `noora-hooks serve` (SPEC §12): it fires
// events through a Backend (the same Engine that `exec` uses, built by the
// cli), keeps it warm between requests, and builds a new one when a watched
// file changes.
//
// It must never answer an event differently from exec (the answer bytes come
// from the same encoder), never read an unbounded request, never drop an
// event it answered 200 (shutdown drains them), never make the caller of a
// streaming event wait for a hook (202: a Queuer delivers it, dropping from
// bounded queues by design, and counting), and never fire for a caller that
// failed the bearer-token check.
package server

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/noora-hooks/noora-hooks/internal/dispatch"

	"github.com/noora-hooks/noora-hooks/client"
	"github.com/noora-hooks/noora-hooks/protocol"
)

// Backend fires events. The cli builds one per config generation from the
// same Engine as exec.
type Backend interface {
	// Fire fires event with kwargs kw, hooks running in cwd. It must be safe
	// for concurrent use.
	Fire(ctx context.Context, event protocol.Event, kw protocol.Kwargs, cwd string) dispatch.Report
	// Hooks is the JSON document of GET /v1/hooks.
	Hooks() []byte
	// AcceptsHooks reports whether every configured hook is approved without
	// asking (SPEC §5), so a caller asking for that can be served.
	AcceptsHooks() bool
}

// A Backend that holds processes (plugin hosts) also implements io.Closer:
// the server closes a generation once it is replaced and its last event is done.

// Queuer is a Backend that delivers the streaming family of observer events
// (on_stream_start, on_stream_delta, on_stream_end, on_interim_message) off
// the caller's path (package observe). Such an event is handed to Queue and
// answered 202 Accepted at once, with exec's answer ({"event": ...}).
type Queuer interface {
	// Queue hands the event to its hooks' queues and returns at once; false
	// when it cannot take events any more (shutting down). done must be
	// called once every hook has run or dropped the event, even when Queue
	// returns false: the generation stays open until then.
	Queue(event protocol.Event, kw protocol.Kwargs, cwd string, done func()) bool
}

// Options configure a Server.
type Options struct {
	// Load builds a Backend from the current files. It is called once by New
	// and again whenever a file of Watch changes; an error then keeps the last
	// good Backend.
	Load func() (Backend, error)
	// Watch are the files whose change means a new Backend: the config and
	// the allowlist. A missing file is a state like any other.
	Watch []string
	// CheckEvery is how often the files are looked at: at most once per
	// CheckEvery, by the event that arrives after it has passed, so a change
	// counts for every event that starts CheckEvery after it. The same
	// interval bounds how long a caller's working directory, once found, is
	// trusted to exist. 0 looks before every event (a stat per file per
	// event: on a busy server that costs a third of its throughput).
	CheckEvery time.Duration
	// Config and Home are the files the server serves; a request naming other
	// ones is refused (409), so its caller does not get another config's answer.
	Config, Home string
	// Token, when set, must come with every request but GET /healthz as
	// "Authorization: Bearer <token>".
	Token string
	// Cwd is where hooks run when a request does not say.
	Cwd string
	// MaxPayload bounds a request body: exec's bound on kwargs.
	MaxPayload int64
	// BodyTimeout bounds how long a request body may take to arrive, from
	// the end of its headers. 0: DefaultBodyTimeout.
	BodyTimeout time.Duration
	// MaxEvents bounds the events fired at once; more wait their turn. 0: 64.
	MaxEvents int
	// Logf prints one line of serve's log (stderr).
	Logf func(format string, args ...any)
}

// DefaultMaxEvents is the default of Options.MaxEvents: enough that 8 busy
// clients never queue, few enough that the processes of a burst stay bounded.
const DefaultMaxEvents = 64

// maxHeaderBytes bounds a request's headers (the cwd is the longest).
const maxHeaderBytes = 64 << 10

// maxWarningHeaders bounds the warning headers of one answer (bytes); what is
// over is counted in one last warning, and every warning is in serve's log.
const maxWarningHeaders = 256 << 10

// Server serves events over HTTP.
type Server struct {
	opts   Options
	logf   func(string, ...any)
	sem    chan struct{}
	http   *http.Server
	served atomic.Int64

	// cur is the Backend generation new events use.
	cur atomic.Pointer[generation]
	// seen are the stamps of Watch last examined, whether or not the load
	// they caused worked: a broken config is reported once, not per request.
	seen     atomic.Pointer[[]stamp]
	reloadMu sync.Mutex
	// lastCheck is when the files were last looked at (Unix ns); knownCwd
	// the last working directory found to be a directory, and when.
	lastCheck atomic.Int64
	knownCwd  atomic.Pointer[checkedDir]

	// hookCtx is the parent of every firing; cancelling it kills running hooks.
	hookCtx    context.Context
	cancelHook context.CancelFunc

	// streamSem bounds the bodies of streaming events being read, apart from
	// sem: a host's token stream never waits behind slow directive events.
	streamSem chan struct{}
}

// New loads the first Backend and returns a server for it.
func New(opts Options) (*Server, error) {
	if opts.MaxEvents <= 0 {
		opts.MaxEvents = DefaultMaxEvents
	}
	if opts.MaxPayload <= 0 {
		return nil, errors.New("server: MaxPayload must be set")
	}
	s := &Server{opts: opts, logf: opts.Logf, sem: make(chan struct{}, opts.MaxEvents), streamSem: make(chan struct{}, opts.MaxEvents)}
	if s.logf == nil {
		s.logf = func(string, ...any) {}
	}
	stamps := statAll(opts.Watch)
	b, err := opts.Load()
	if err != nil {
		return nil, err
	}
	s.seen.Store(&stamps)
	s.cur.Store(&generation{backend: b})
	s.hookCtx, s.cancelHook = context.WithCancel(context.Background())
	s.http = &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		// A body of MaxPayload on a socket takes well under this; a client
		// that trickles it is cut off.
		ReadTimeout: 2 * time.Minute,
		// No WriteTimeout: a hook may run 300 s (SPEC §2) before the answer.
		IdleTimeout:    2 * time.Minute,
		MaxHeaderBytes: maxHeaderBytes,
		ErrorLog:       log.New(logWriter(s.logf), "", 0),
	}
	return s, nil
}

// Handler returns the routes. GET /healthz needs no token; the rest do.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/events/{event}", s.auth(s.handleEvent))
	mux.HandleFunc("/v1/hooks", s.auth(s.handleHooks))
	mux.HandleFunc("/healthz", s.handleHealth)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no such endpoint: %s %s; there are POST /v1/events/{event}, GET /v1/hooks and GET /healthz", r.Method, r.URL.Path), nil)
	})
	return mux
}

// Serve answers on l until Shutdown. It returns nil after a shutdown.
func (s *Server) Serve(l net.Listener) error {
	err := s.http.Serve(l)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// Shutdown stops accepting, and waits for every event already accepted to be
// answered. When ctx ends first, running hooks are cancelled (their process
// groups killed, as exec does on SIGTERM) and their events answered as such.
// Then the Backend is closed.
func (s *Server) Shutdown(ctx context.Context) error {
	err := s.http.Shutdown(ctx)
	if err != nil {
		s.cancelHook()
		// Cancelled hooks end within the runner's grace (about 2 s): wait
		// for their handlers to answer.
		err = s.http.Shutdown(context.Background())
	}
	s.cancelHook()
	s.cur.Load().retire()
	return err
}

// Served returns how many events were answered.
func (s *Server) Served() int64 { return s.served.Load() }

// Config is the config file the server serves (Options.Config).
func (s *Server) Config() string { return s.opts.Config }

// auth checks the bearer token when one is set.
func (s *Server) auth(next http.HandlerFunc) http.HandlerFunc {
	if s.opts.Token == "" {
		return next
	}
	want := []byte("Bearer " + s.opts.Token)
	return func(w http.ResponseWriter, r *http.Request) {
		got := []byte(r.Header.Get("Authorization"))
		if subtle.ConstantTimeCompare(got, want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="noora-hooks"`)
			writeError(w, http.StatusUnauthorized, "missing or wrong bearer token: send \"Authorization: Bearer <token>\" with the token of serve's --token-file", nil)
			return
		}
		next(w, r)
	}
}

func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	if !allow(w, r, http.MethodGet, http.MethodHead) {
		return
	}
	writeJSON(w, http.StatusOK, protocol.Object{{Key: "status", Value: protocol.String("ok")}})
}

func (s *Server) handleHooks(w http.ResponseWriter, r *http.Request) {
	if !allow(w, r, http.MethodGet, http.MethodHead) {
		return
	}
	s.refresh()
	g := s.acquire()
	body := g.backend.Hooks()
	g.release()
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}

// eventRequest is a POST /v1/events/{event} that passed every check.
type eventRequest struct {
	event protocol.Event
	kw    protocol.Kwargs
	cwd   string
	trace bool
}

// handleEvent is POST /v1/events/{event}: the kwargs in, exec's answer out,
// once every hook is done; for an event of the streaming family, at once
// (202), when the Backend is a Queuer.
func (s *Server) handleEvent(w http.ResponseWriter, r *http.Request) {
	req, release, ok := s.readEvent(w, r)
	if !ok {
		return
	}
	defer release()
	if req.event.Streaming() && s.queue(w, req) {
		return
	}
	s.fire(w, req)
}

// queue hands a streaming event to the Backend's queues and answers 202 with
// exec's answer; the hooks run after. It reports false when the Backend does
// not queue, and the event must be fired. The generation stays open until
// every hook is done with the event. A trace is not given: no hook has run.
func (s *Server) queue(w http.ResponseWriter, req eventRequest) bool {
	g := s.acquire()
	q, ok := g.backend.(Queuer)
	if !ok {
		g.release()
		return false
	}
	if !q.Queue(req.event, req.kw, req.cwd, g.release) {
		writeError(w, http.StatusServiceUnavailable, "serve is shutting down: the event was not queued", nil)
		return true
	}
	s.served.Add(1)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusAccepted)
	_, _ = w.Write(dispatch.Report{Combined: protocol.Combine(req.event.Name, req.kw, nil)}.AnswerJSON(false))
	return true
}

// readEvent checks a request and reads its kwargs, or answers the error and
// returns ok=false. On success the caller holds one of MaxEvents slots until
// it calls release. The slot is taken only once the whole body is read and
// parsed (readBody): a client that trickles its body holds no slot, so it
// cannot stop other events.
func (s *Server) readEvent(w http.ResponseWriter, r *http.Request) (req eventRequest, release func(), ok bool) {
	if !allow(w, r, http.MethodPost) {
		return req, nil, false
	}
	name := r.PathValue("event")
	event, known := protocol.Lookup(name)
	if !known {
		msg := fmt.Sprintf("unknown event %q", name)
		if best, ok := protocol.Closest(name); ok {
			msg += fmt.Sprintf("; did you mean %q?", best)
		}
		writeError(w, http.StatusNotFound, msg, protocol.Object{{Key: "valid_events", Value: protocol.Raw(protocol.EventNames())}})
		return req, nil, false
	}
	cwd, err := s.cwdOf(r)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error(), nil)
		return req, nil, false
	}
	s.refresh()
	if msg := s.mismatch(r); msg != "" {
		writeError(w, http.StatusConflict, msg, nil)
		return req, nil, false
	}
	v := r.URL.Query().Get("trace")
	req = eventRequest{event: event, cwd: cwd, trace: v == "1" || v == "true"}

	data, ok := s.readBody(w, r)
	if !ok {
		return req, nil, false
	}
	if req.kw, err = protocol.ParseKwargs(data); err != nil {
		if errors.Is(err, protocol.ErrNotObject) {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("payload is %v; %s", err, protocol.KwargsHint), nil)
		} else {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("payload: %v; %s", err, protocol.KwargsHint), nil)
		}
		return req, nil, false
	}
	sem := s.sem
	if event.Streaming() {
		sem = s.streamSem
	}
	select {
	case sem <- struct{}{}:
	case <-r.Context().Done():
		return req, nil, false // the caller left before its event started: nothing ran
	}
	return req, func() { <-sem }, true
}

// fire fires one event and answers with exec's bytes, its warnings in headers
// and in serve's log.
func (s *Server) fire(w http.ResponseWriter, req eventRequest) {
	g := s.acquire()
	// Hooks outlive a caller that hangs up, as they outlive an exec killed
	// without a signal: once started, an event runs to the end (bounded by
	// each hook's timeout). Only a forced shutdown cancels them.
	report := g.backend.Fire(s.hookCtx, req.event, req.kw, req.cwd)
	g.release()
	s.served.Add(1)

	warnings := report.Warnings()
	for _, msg := range warnings {
		s.logf("warning: %s", msg)
	}
	setWarnings(w.Header(), warnings)
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(report.AnswerJSON(req.trace))
}

// cwdOf is the working directory hooks run in: the X-Noora-Cwd header, else
// the cwd query parameter, else serve's own. It must be an absolute path to a
// directory.
func (s *Server) cwdOf(r *http.Request) (string, error) {
	cwd := r.Header.Get(client.HeaderCwd)
	if cwd == "" {
		cwd = r.URL.Query().Get("cwd")
	}
	if cwd == "" {
		return s.opts.Cwd, nil
	}
	if !filepath.IsAbs(cwd) {
		return "", fmt.Errorf("working directory %q (%s) is not an absolute path", cwd, client.HeaderCwd)
	}
	cwd = filepath.Clean(cwd)
	now := time.Now().UnixNano()
	if k := s.knownCwd.Load(); k != nil && k.path == cwd && now-k.at < int64(s.opts.CheckEvery) {
		return cwd, nil
	}
	if ok, err := isDir(cwd); !ok {
		return "", fmt.Errorf("working directory %q (%s): %v", cwd, client.HeaderCwd, err)
	}
	s.knownCwd.Store(&checkedDir{path: cwd, at: now})
	return cwd, nil
}

// checkedDir is a directory found to exist at a time (Unix ns).
type checkedDir struct {
	path string
	at   int64
}

// mismatch explains why this server cannot answer for the caller: it serves
// another config or home, or does not approve hooks the caller approves.
func (s *Server) mismatch(r *http.Request) string {
	if c := r.Header.Get(client.HeaderConfig); c != "" && !samePath(c, s.opts.Config) {
		return fmt.Sprintf("this server serves config %s, not %s", s.opts.Config, c)
	}
	if h := r.Header.Get(client.HeaderHome); h != "" && !samePath(h, s.opts.Home) {
		return fmt.Sprintf("this server serves home %s, not %s", s.opts.Home, h)
	}
	if r.Header.Get(client.HeaderAcceptHooks) != "" && !s.cur.Load().backend.AcceptsHooks() {
		return "the caller approves every hook (--accept-hooks), and this server does not"
	}
	return ""
}

func samePath(a, b string) bool {
	return filepath.Clean(a) == filepath.Clean(b)
}

// allow answers 405 with the Allow header unless r's method is one of methods.
func allow(w http.ResponseWriter, r *http.Request, methods ...string) bool {
	for _, m := range methods {
		if r.Method == m {
			return true
		}
	}
	w.Header().Set("Allow", strings.Join(methods, ", "))
	writeError(w, http.StatusMethodNotAllowed, fmt.Sprintf("method %s not allowed on %s; use %s", r.Method, r.URL.Path, strings.Join(methods, " or ")), nil)
	return false
}

// writeError answers {"error": msg, <extra>}.
func writeError(w http.ResponseWriter, code int, msg string, extra protocol.Object) {
	writeJSON(w, code, append(protocol.Object{{Key: "error", Value: protocol.String(msg)}}, extra...))
}

func writeJSON(w http.ResponseWriter, code int, o protocol.Object) {
	b, _ := o.MarshalJSON()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(append(b, '\n'))
}

// setWarnings puts each warning in its own header, as an ASCII JSON string
// (a header cannot hold a newline), up to maxWarningHeaders bytes.
func setWarnings(h http.Header, warnings []string) {
	size := 0
	for i, msg := range warnings {
		v := asciiJSON(msg)
		if size+len(v) > maxWarningHeaders {
			h.Add(client.HeaderWarning, asciiJSON(fmt.Sprintf("%d more warnings are in serve's log", len(warnings)-i)))
			return
		}
		size += len(v)
		h.Add(client.HeaderWarning, v)
	}
}

// asciiJSON encodes s as a JSON string that holds only printable ASCII.
func asciiJSON(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r >= 0x20 && r < 0x7f:
			b.WriteRune(r)
		case r > 0xffff:
			r -= 0x10000
			fmt.Fprintf(&b, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// logWriter sends what net/http logs (a connection that failed) to serve's log.
type logWriter func(string, ...any)

func (l logWriter) Write(p []byte) (int, error) {
	l("%s", strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// size says n bytes the way a person reads it.
func size(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}
