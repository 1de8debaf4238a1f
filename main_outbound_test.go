package main

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/tidwall/gjson"

	"github.com/noora-hooks/noora-hooks/internal/outbound"
)

// sink is a webhook receiver on 127.0.0.1, inside the test process, that
// records every request and checks it against SPEC §7.
type sink struct {
	srv    *httptest.Server
	body   string // answer with this instead of "sink says <code>"
	secret string
	codes  []int
	hang   bool
	delay  time.Duration
	gate   chan struct{}

	mu  sync.Mutex
	got []sinkRequest
}

type sinkRequest struct {
	path   string
	header http.Header
	body   []byte
}

var (
	sinksMu sync.Mutex
	sinks   = map[*testscript.TestScript]map[string]*sink{}
)

func (s *sink) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	s.mu.Lock()
	s.got = append(s.got, sinkRequest{r.URL.Path, r.Header.Clone(), body})
	n := len(s.got)
	s.mu.Unlock()
	if s.hang {
		<-r.Context().Done() // never answers: the sender's timeout must end it
		return
	}
	if s.gate != nil {
		select {
		case <-s.gate:
		case <-r.Context().Done():
			return
		}
	}
	time.Sleep(s.delay)
	code := 200
	if len(s.codes) > 0 {
		code = s.codes[min(n, len(s.codes))-1]
	}
	if code >= 300 && code < 400 {
		w.Header().Set("Location", "/elsewhere")
	}
	w.WriteHeader(code)
	if s.body != "" {
		io.WriteString(w, s.body)
		return
	}
	fmt.Fprintf(w, "sink says %d\n", code)
}

func (s *sink) requests() []sinkRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.got)
}

// cmdSink drives webhook receivers:
//
//	sink start NAME [-secret S] [-status 500,200] [-hang] [-gate] [-delay D] [-body GOSTRING]
//	    starts one and sets $NAME_URL (upper case) to its base url
//	sink wait NAME N      waits (up to 30 s) until it has N requests
//	sink open NAME        lets requests held by -gate through
//	sink report NAME [PATH...]
//	    prints one line per request: path, event, delivery (#n by first
//	    appearance, so a retry shows the same #n), signature and SPEC §7
//	    checks, then the body's values at the gjson PATHs
//	sink count NAME       prints requests=N unique=N dup=N
func cmdSink(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: sink start|wait|open|report|count NAME ...")
	}
	sinksMu.Lock()
	byName := sinks[ts]
	if byName == nil {
		byName = map[string]*sink{}
		sinks[ts] = byName
	}
	s := byName[args[1]]
	sinksMu.Unlock()
	if args[0] != "start" && s == nil {
		ts.Fatalf("no sink %q", args[1])
	}
	switch args[0] {
	case "start":
		fs := flag.NewFlagSet("sink", flag.ContinueOnError)
		s = &sink{}
		status := fs.String("status", "", "answer with these codes in turn; the last repeats")
		fs.StringVar(&s.secret, "secret", "", "check signatures against this secret")
		fs.BoolVar(&s.hang, "hang", false, "never answer")
		gate := fs.Bool("gate", false, "hold every request until 'sink open'")
		fs.DurationVar(&s.delay, "delay", 0, "wait this long before answering")
		body := fs.String("body", "", "answer with this body, Go escapes allowed (\\x1b)")
		ts.Check(fs.Parse(args[2:]))
		if *body != "" {
			b, err := strconv.Unquote(`"` + *body + `"`)
			ts.Check(err)
			s.body = b
		}
		for _, c := range strings.Split(*status, ",") {
			if c != "" {
				code, err := strconv.Atoi(c)
				ts.Check(err)
				s.codes = append(s.codes, code)
			}
		}
		if *gate {
			s.gate = make(chan struct{})
		}
		s.srv = httptest.NewServer(s)
		ts.Defer(func() {
			if s.gate != nil {
				s.open()
			}
			s.srv.CloseClientConnections()
			s.srv.Close()
			sinksMu.Lock()
			delete(sinks, ts)
			sinksMu.Unlock()
		})
		sinksMu.Lock()
		byName[args[1]] = s
		sinksMu.Unlock()
		ts.Setenv(strings.ToUpper(args[1])+"_URL", s.srv.URL)
	case "wait":
		want, err := strconv.Atoi(args[2])
		ts.Check(err)
		deadline := time.Now().Add(30 * time.Second)
		for len(s.requests()) < want {
			if time.Now().After(deadline) {
				ts.Fatalf("sink %s got %d requests in 30s, want %d", args[1], len(s.requests()), want)
			}
			time.Sleep(10 * time.Millisecond)
		}
	case "open":
		s.open()
	case "report":
		ids := map[string]int{}
		for _, r := range s.requests() {
			id := r.header.Get("X-Noora-Delivery")
			if ids[id] == 0 {
				ids[id] = len(ids) + 1
			}
			line := fmt.Sprintf("%s %s #%d signature=%s checks=%s", r.path, r.header.Get("X-Noora-Event"), ids[id], s.signature(r), check(r))
			for _, p := range args[2:] {
				line += " " + p + "=" + gjson.GetBytes(r.body, p).Raw
			}
			fmt.Fprintln(ts.Stdout(), line)
		}
	case "count":
		reqs := s.requests()
		unique := map[string]bool{}
		for _, r := range reqs {
			unique[r.header.Get("X-Noora-Delivery")] = true
		}
		fmt.Fprintf(ts.Stdout(), "requests=%d unique=%d dup=%d\n", len(reqs), len(unique), len(reqs)-len(unique))
	default:
		ts.Fatalf("unknown sink command %q", args[0])
	}
}

func (s *sink) open() {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.gate:
	default:
		close(s.gate)
	}
}

// signature says what the signature header is worth: ok or BAD against the
// sink's secret, missing when a secret is expected; none or present when the
// sink has no secret.
func (s *sink) signature(r sinkRequest) string {
	sig := r.header.Get("X-Noora-Signature-256")
	switch {
	case s.secret == "" && sig == "":
		return "none"
	case s.secret == "":
		return "present"
	case sig == "":
		return "missing"
	case outbound.Verify(s.secret, r.body, sig):
		return "ok"
	}
	return "BAD"
}

var (
	stampRe  = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`)
	idRe     = regexp.MustCompile(`^[0-9a-f]{32}$`)
	bodyKeys = []string{"hook_event_name", "tool_name", "tool_input", "session_id", "cwd", "extra", "delivery_id", "timestamp"}
)

// check lists what in a request breaks SPEC §7, or says ok.
func check(r sinkRequest) string {
	var bad []string
	body := gjson.ParseBytes(r.body)
	var keys []string
	body.ForEach(func(k, _ gjson.Result) bool { keys = append(keys, k.String()); return true })
	if !slices.Equal(keys, bodyKeys) {
		bad = append(bad, "body-keys:"+strings.Join(keys, ","))
	}
	id := r.header.Get("X-Noora-Delivery")
	if !idRe.MatchString(id) || body.Get("delivery_id").String() != id {
		bad = append(bad, "delivery-id")
	}
	if !stampRe.MatchString(body.Get("timestamp").String()) {
		bad = append(bad, "timestamp")
	}
	if ev := r.header.Get("X-Noora-Event"); ev == "" || body.Get("hook_event_name").String() != ev {
		bad = append(bad, "event")
	}
	if r.header.Get("Content-Type") != "application/json" {
		bad = append(bad, "content-type")
	}
	if !strings.HasPrefix(r.header.Get("User-Agent"), "noora-hooks/") {
		bad = append(bad, "user-agent")
	}
	if len(bad) == 0 {
		return "ok"
	}
	return strings.Join(bad, "+")
}

// cmdEnvsubst replaces $VAR and ${VAR} in each FILE with the script's
// environment (the sinks' urls are known only once they run).
func cmdEnvsubst(ts *testscript.TestScript, neg bool, args []string) {
	for _, f := range args {
		out := os.Expand(ts.ReadFile(f), ts.Getenv)
		ts.Check(os.WriteFile(ts.MkAbs(f), []byte(out), 0o644))
	}
}

// cmdKillSender kills the background sender of $NOORA_HOME with SIGKILL,
// as a crash or an OOM kill would, and waits until it is gone.
func cmdKillSender(ts *testscript.TestScript, neg bool, args []string) {
	lock := filepath.Join(ts.Getenv("NOORA_HOME"), "outbound", "sender.lock")
	data, err := os.ReadFile(lock)
	ts.Check(err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		ts.Fatalf("no sender pid in %s: %q", lock, data)
	}
	ts.Check(syscall.Kill(pid, syscall.SIGKILL))
	deadline := time.Now().Add(10 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			ts.Fatalf("sender %d still alive 10s after SIGKILL", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// alive reports whether pid runs; a zombie waiting for its parent does not.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	_, rest, _ := strings.Cut(string(stat), ") ")
	return !strings.HasPrefix(rest, "Z")
}

// cmdParallel runs `parallel N PROGRAM ARGS...`: N copies of PROGRAM at once,
// in the script's directory and environment. It fails when any copy fails;
// their stderr is kept for the `stderr` command.
func cmdParallel(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: parallel N PROGRAM [ARGS...]")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	var env []string
	for _, k := range []string{"PATH", "HOME", "TMPDIR", "WORK", "NOORA_HOME", "NOORA_SAFE_MODE", "NOORA_ACCEPT_HOOKS"} {
		env = append(env, k+"="+ts.Getenv(k))
	}
	type out struct {
		stderr []byte
		err    error
	}
	outs := make([]out, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			cmd := exec.Command(args[1], args[2:]...)
			cmd.Dir = ts.MkAbs(".")
			cmd.Env = env
			var stderr strings.Builder
			cmd.Stderr = &stderr
			outs[i].err = cmd.Run()
			outs[i].stderr = []byte(stderr.String())
		})
	}
	wg.Wait()
	failed := 0
	for _, o := range outs {
		ts.Stderr().Write(o.stderr)
		if o.err != nil {
			failed++
		}
	}
	if (failed > 0) != neg {
		ts.Fatalf("%d of %d copies of %s failed", failed, n, args[1])
	}
}
