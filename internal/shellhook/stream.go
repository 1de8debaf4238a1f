//go:build unix

package shellhook

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/noora-hooks/noora-hooks/internal/dispatch"
	"github.com/noora-hooks/noora-hooks/internal/runner"

	"github.com/noora-hooks/noora-hooks/internal/config"
	"github.com/noora-hooks/noora-hooks/protocol"
)

// Bounds of the long-lived stream hooks.
const (
	// DefaultStreamIdle is how long a stream process may wait for its next
	// line before it is closed, when Streams.IdleTimeout is 0.
	DefaultStreamIdle = config.DefaultStreamIdleTimeout
	// DefaultStreamSessions bounds the processes one stream hook keeps at
	// once (one per session): past it, the least recently used is closed.
	DefaultStreamSessions = 64
	// streamStdoutLine bounds one line of a stream process's stdout, which
	// nobody reads: it is drained and thrown away.
	streamStdoutLine = 4 << 10
)

// StreamHook is a `stream: true` shell hook: instead of a process per event,
// one process per session reads the whole stream, one SPEC §4 payload per
// line (on_stream_start, each on_stream_delta, on_stream_end), and is closed
// after on_stream_end: its stdin ends, and its process group is killed if it
// is still there after the entry's timeout.
//
// With Streams set (serve), processes live across events. Without (exec,
// test, doctor), each event is a stream of one line: start, write, close,
// wait. Its stdout is drained and thrown away: a stream hook only observes.
type StreamHook struct {
	Config  config.ShellHook
	Streams *Streams
	// CloseOnly: write nothing, only close the session's process. ShellSource
	// adds one for every stream hook not listed under on_stream_end, so that
	// on_stream_end closes every stream of its session.
	CloseOnly bool
	// Drift: consent let it run although its approval had drifted (Verdict).
	Drift string
}

// Describe implements Hook.
func (h *StreamHook) Describe() dispatch.HookInfo {
	return dispatch.HookInfo{Source: "shell", Name: h.Config.Command, Where: h.Config.Where()}
}

// QueueKey implements QueueKeyer: every event of one stream command shares a
// queue, so its lines reach the process in the order they were fired.
func (h *StreamHook) QueueKey(string) string {
	return StreamQueueKey(h.Config.Command)
}

// StreamQueueKey is the Fanout queue of the stream hook with command.
func StreamQueueKey(command string) string {
	return "stream\x00shell\x00" + command
}

// Run implements Hook.
func (h *StreamHook) Run(ctx context.Context, call dispatch.Call) dispatch.Result {
	var res dispatch.Result
	if h.Streams == nil {
		res = h.once(ctx, call)
	} else {
		res = h.Streams.deliver(ctx, h, call)
	}
	res.Drift = h.Drift
	return res
}

func (h *StreamHook) where() string {
	return fmt.Sprintf("%s hook %q", h.Config.Event, h.Config.Command)
}

// start starts the hook's process for call, its stdout drained and thrown
// away. log gets its stderr lines (nil: only the tail is kept).
func (h *StreamHook) start(argv []string, call dispatch.Call, log func(string)) (*runner.Child, error) {
	ch, err := runner.Start(runner.ChildCommand{
		Argv: argv, Dir: call.Cwd,
		Env:       runner.Environ(Env(call), "NOORA_HOOK_STREAM=1"),
		LineLimit: streamStdoutLine,
		Stderr:    log,
	})
	if err != nil {
		return nil, err
	}
	go func() {
		for {
			if _, err := ch.ReadLine(); err != nil && !errors.Is(err, runner.ErrLineTooLong) {
				return
			}
		}
	}()
	return ch, nil
}

// once is a stream of one line: the hook reads one payload, then end of
// input, and is read like a plain hook that printed nothing.
func (h *StreamHook) once(ctx context.Context, call dispatch.Call) dispatch.Result {
	plain := &ShellHook{Config: h.Config}
	res := dispatch.Result{HookInfo: h.Describe(), Status: dispatch.StatusOK}
	argv, err := Argv(h.Config.Command)
	if err != nil {
		res.Status = dispatch.StatusError
		return plain.failed(res, err.Error(), err.Error())
	}
	begin := time.Now()
	ch, err := h.start(argv, call, nil)
	if err != nil {
		res.Duration = time.Since(begin)
		out := runner.Outcome{End: runner.StartFailed, Code: -1, Err: err, Duration: res.Duration}
		res.Outcome = &out
		return plain.read(res, call, out)
	}
	defer context.AfterFunc(ctx, ch.Terminate)()
	deadline := begin.Add(h.Config.Timeout)
	// A hook that exits without reading is not an error (SPEC §4): a failed
	// write only means there is nobody to read.
	_ = ch.Send(call.Payload(), deadline)
	ch.CloseStdin()
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	out := runner.Outcome{End: runner.Exited}
	select {
	case <-ch.Done():
	case <-timer.C:
		out.End = runner.TimedOut
		ch.Terminate()
		<-ch.Done()
	}
	res.Duration = time.Since(begin)
	exit := ch.Exit()
	out.Code, out.Signal = exit.Code, exit.Signal
	out.Stderr = []byte(ch.StderrTail())
	out.Duration = res.Duration
	if out.End == runner.TimedOut {
		out.Code = -1
	}
	res.Outcome = &out // stdout stays empty: a stream hook's is not read
	return plain.read(res, call, out)
}

// Streams keeps the processes of the stream hooks of a long-lived server:
// one per hook command and session. A process is closed after on_stream_end
// of its session, after IdleTimeout without a line, when its hook opens more
// than MaxSessions sessions (the least recently used goes), and on Close.
type Streams struct {
	// IdleTimeout: 0 means DefaultStreamIdle.
	IdleTimeout time.Duration
	// MaxSessions per hook command: 0 means DefaultStreamSessions.
	MaxSessions int
	// Log gets each line a stream process writes to stderr; nil discards
	// them. It is called from several goroutines.
	Log func(command, line string)
	// Warn gets what goes wrong after the event that caused it was
	// delivered: a closed process that exited badly, one closed for being
	// idle. It is called from several goroutines.
	Warn func(msg string)

	mu      sync.Mutex
	procs   map[streamKey]*streamProc
	closed  bool
	closing sync.WaitGroup // processes being closed
	reaping bool
	stop    chan struct{} // closed by Close: the reaper ends
	// hurry is closed when Close's grace is over: processes still closing
	// are killed then rather than after their own timeout.
	hurry     chan struct{}
	hurryOnce sync.Once
}

type streamKey struct{ command, session string }

// streamProc is the process of one hook and session.
type streamProc struct {
	key  streamKey
	hook config.ShellHook // the entry that opened it: its timeout applies

	mu       sync.Mutex    // held while writing a line
	child    *runner.Child // nil once failed
	failed   bool          // ended before its stream: the stream's other lines are dropped
	gone     bool          // removed from Streams: the next line opens a new one
	lastUsed time.Time
}

// StreamStats says what a Streams holds.
type StreamStats struct {
	Open int `json:"open"` // processes running
}

func (s *Streams) idle() time.Duration {
	if s.IdleTimeout > 0 {
		return s.IdleTimeout
	}
	return DefaultStreamIdle
}

func (s *Streams) warn(msg string) {
	if s.Warn != nil {
		s.Warn(msg)
	}
}

// Stats reports the open processes.
func (s *Streams) Stats() StreamStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, p := range s.procs {
		if !p.failed {
			n++
		}
	}
	return StreamStats{Open: n}
}

func (s *Streams) initLocked() {
	if s.procs == nil {
		s.procs = map[streamKey]*streamProc{}
	}
	if s.hurry == nil {
		s.hurry = make(chan struct{})
	}
}

// take returns the process entry of key, creating an empty one, and marks it
// used. It reports false once the Streams is closed.
func (s *Streams) take(key streamKey, hook config.ShellHook, create bool) (*streamProc, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, false
	}
	s.initLocked()
	p := s.procs[key]
	if p == nil {
		if !create {
			return nil, true
		}
		s.evictLocked(key.command)
		p = &streamProc{key: key, hook: hook}
		s.procs[key] = p
	}
	p.lastUsed = time.Now()
	if !s.reaping {
		s.reaping = true
		s.stop = make(chan struct{})
		go s.reap(s.stop)
	}
	return p, true
}

// evictLocked makes room for one more session of command.
func (s *Streams) evictLocked(command string) {
	limit := s.MaxSessions
	if limit <= 0 {
		limit = DefaultStreamSessions
	}
	var mine []*streamProc
	for k, p := range s.procs {
		if k.command == command {
			mine = append(mine, p)
		}
	}
	if len(mine) < limit {
		return
	}
	sort.Slice(mine, func(i, j int) bool { return mine[i].lastUsed.Before(mine[j].lastUsed) })
	for _, p := range mine[:len(mine)-limit+1] {
		delete(s.procs, p.key)
		s.warn(fmt.Sprintf("stream hook %q: more than %d sessions at once; closed the stream of session %s, the least recently used", command, limit, p.key.session))
		s.closeAsync(p)
	}
}

// remove forgets p, if it is still the process of its key.
func (s *Streams) remove(p *streamProc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.procs[p.key] == p {
		delete(s.procs, p.key)
	}
}

// closeAsync ends p's stream in the background: it is marked gone at once
// (a line being written finishes first), its stdin closed, and its process
// group killed when it is still there after its timeout.
func (s *Streams) closeAsync(p *streamProc) {
	s.closing.Add(1)
	hurry := s.hurry
	go func() {
		defer s.closing.Done()
		s.closeNow(p, p.hook.Timeout, hurry)
	}()
}

// closeNow closes p's stdin and waits for its process to exit, at most grace
// or until hurry is closed; then its process group is killed.
func (s *Streams) closeNow(p *streamProc, grace time.Duration, hurry <-chan struct{}) {
	p.mu.Lock()
	p.gone = true
	ch := p.child
	p.child = nil
	p.mu.Unlock()
	if ch == nil {
		return
	}
	ch.CloseStdin()
	timer := time.NewTimer(grace)
	defer timer.Stop()
	killed := true
	select {
	case <-ch.Done():
		killed = false
	case <-timer.C:
	case <-hurry:
	}
	ch.Terminate()
	<-ch.Done()
	switch exit := ch.Exit(); {
	case killed:
		s.warn(fmt.Sprintf("stream hook %q (session %s) was still running %s after the end of its stream; its process group was killed", p.key.command, p.key.session, grace))
	case exit.Code != 0:
		s.warn(fmt.Sprintf("stream hook %q (session %s) %s at the end of its stream%s", p.key.command, p.key.session, exit, tailNote(ch)))
	}
}

func tailNote(ch *runner.Child) string {
	if last := lastLine(ch.StderrTail()); last != "" {
		return ": " + last
	}
	return ""
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return Excerpt(strings.TrimSpace(s))
}

// reap closes the processes that have been idle too long.
func (s *Streams) reap(stop <-chan struct{}) {
	idle := s.idle()
	tick := time.NewTicker(max(idle/4, 10*time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case now := <-tick.C:
			s.mu.Lock()
			for k, p := range s.procs {
				if now.Sub(p.lastUsed) >= idle {
					delete(s.procs, k)
					if !p.failed {
						s.warn(fmt.Sprintf("stream hook %q: no line for session %s in %s; its stream was closed (hooks_stream_idle_timeout)", k.command, k.session, idle))
					}
					s.closeAsync(p)
				}
			}
			s.mu.Unlock()
		}
	}
}

// deliver writes call as one line to the process of h's command and call's
// session, starting it on the session's first line, and closes it after
// on_stream_end.
func (s *Streams) deliver(ctx context.Context, h *StreamHook, call dispatch.Call) dispatch.Result {
	res := dispatch.Result{HookInfo: h.Describe(), Status: dispatch.StatusOK}
	begin := time.Now()
	defer func() { res.Duration = time.Since(begin) }()
	key := streamKey{command: h.Config.Command, session: protocol.SessionKey(call.Kwargs)}
	end := call.Event.Name == protocol.OnStreamEnd
	for {
		p, open := s.take(key, h.Config, !h.CloseOnly)
		if !open {
			res.Status = dispatch.StatusSkipped
			res.NotDelivered = true
			res.Warnings = append(res.Warnings, dispatch.Warning{Hook: h.where(), Message: "not delivered: the server is shutting down"})
			return res
		}
		if p == nil { // CloseOnly, and no process for the session
			return res
		}
		p.mu.Lock()
		if p.gone { // closed between take and here: open a new one
			p.mu.Unlock()
			continue
		}
		if !h.CloseOnly {
			s.writeLocked(ctx, h, p, call, &res)
		}
		p.mu.Unlock()
		if end {
			s.remove(p)
			s.closeAsync(p)
		}
		return res
	}
}

// writeLocked writes one line to p, starting its process first when it has
// none. A process that cannot start, that ended before its stream did or
// that does not read its stdin within the hook's timeout fails the stream:
// one warning, then the session's other lines are dropped.
func (s *Streams) writeLocked(ctx context.Context, h *StreamHook, p *streamProc, call dispatch.Call, res *dispatch.Result) {
	if p.failed {
		res.Status = dispatch.StatusSkipped
		res.NotDelivered = true
		return
	}
	session := p.key.session
	fail := func(status dispatch.Status, what string) {
		p.failed = true
		res.Status = status
		res.NotDelivered = true
		res.Warnings = append(res.Warnings, dispatch.Warning{Hook: h.where(), Message: fmt.Sprintf("%s; the other lines of session %s's stream are dropped", what, session)})
	}
	if p.child == nil {
		var log func(string)
		if s.Log != nil {
			command := h.Config.Command
			log = func(line string) { s.Log(command, line) }
		}
		argv, err := Argv(h.Config.Command)
		if err != nil {
			fail(dispatch.StatusError, err.Error())
			return
		}
		ch, err := h.start(argv, call, log)
		if err != nil {
			fail(dispatch.StatusError, "cannot start: "+err.Error())
			return
		}
		p.child = ch
	}
	ch := p.child
	select {
	case <-ch.Done():
		p.child = nil
		fail(dispatch.StatusError, "ended before its stream did: it "+ch.Exit().String()+tailNote(ch))
		return
	default:
	}
	stop := context.AfterFunc(ctx, ch.Terminate)
	err := ch.Send(call.Payload(), time.Now().Add(h.Config.Timeout))
	stop()
	switch {
	case err == nil:
	case errors.Is(err, os.ErrDeadlineExceeded):
		ch.Terminate()
		<-ch.Done()
		p.child = nil
		fail(dispatch.StatusTimeout, fmt.Sprintf("did not read its stdin for %ds; its process group was killed", int(h.Config.Timeout/time.Second)))
	default:
		<-ch.Done() // a write fails when nobody reads: the process is gone or going
		p.child = nil
		fail(dispatch.StatusError, "ended before its stream did: it "+ch.Exit().String()+tailNote(ch))
	}
}

// Close ends every stream: stdin closed, then, after grace, the process
// groups still there are killed. It returns how many processes it closed,
// once they are all gone; later lines are refused.
func (s *Streams) Close(grace time.Duration) int {
	s.mu.Lock()
	s.closed = true
	s.initLocked()
	hurry := s.hurry
	procs := make([]*streamProc, 0, len(s.procs))
	for _, p := range s.procs {
		procs = append(procs, p)
	}
	s.procs = nil
	if s.stop != nil {
		close(s.stop)
		s.stop = nil
	}
	s.mu.Unlock()
	t := time.AfterFunc(grace, func() { s.hurryOnce.Do(func() { close(hurry) }) })
	defer t.Stop()
	n := 0
	var wg sync.WaitGroup
	for _, p := range procs {
		if !p.failed {
			n++
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.closeNow(p, grace, hurry)
		}()
	}
	wg.Wait()
	s.closing.Wait()
	return n
}

// closers adds to the hooks of an on_stream_end a CloseOnly hook for every
// stream hook that has none there, so that the end of a stream closes every
// process of its session, whatever events its hook is listed under.
func (s *ShellSource) closers(call dispatch.Call, hooks []dispatch.Hook) []dispatch.Hook {
	if s.Streams == nil || call.Event.Name != protocol.OnStreamEnd {
		return hooks
	}
	has := map[string]bool{}
	for _, h := range hooks {
		if sh, ok := h.(*StreamHook); ok {
			has[sh.Config.Command] = true
		}
	}
	for _, e := range s.Entries {
		if e.Stream && !has[e.Command] {
			has[e.Command] = true
			hooks = append(hooks, &StreamHook{Config: e, Streams: s.Streams, CloseOnly: true})
		}
	}
	return hooks
}
