package outbound

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"sync"
	"time"
)

// Delivery policy of SPEC §7.
const (
	// RetryDelay is the wait before the one retry of a 5xx, a connection
	// error or a timeout.
	RetryDelay = 1 * time.Second
	// DefaultIdle is how long a background sender waits for more work once
	// the spool is empty before it exits: a burst of tool calls then reuses
	// one sender instead of starting one per event.
	DefaultIdle = 2 * time.Second
	// poll is how often the sender looks for new deliveries while it waits
	// and while slow targets are busy.
	poll = 50 * time.Millisecond
	// maxTargets bounds how many targets are delivered to at once.
	maxTargets = 64
	// ResponseKeep is how much of a response body is kept for logs and
	// `outbound test`; responseRead is how much is read at most (so that a
	// short body lets the connection be reused), the rest is never read.
	ResponseKeep = 4 << 10
	responseRead = 64 << 10
)

// NewClient is the one HTTP client of a sender: keep-alive connections,
// proxies from the environment, and redirects never followed (SPEC §7: a
// redirected POST would lose its body and signature).
func NewClient() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 4
	return &http.Client{
		Transport: tr,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// Attempt is one POST of a delivery.
type Attempt struct {
	Code     int    // HTTP status; 0 when no response came
	Err      string // transport error, when Code is 0
	TimedOut bool
	Location string // of a 3xx
	Header   http.Header
	Body     []byte // the first ResponseKeep bytes
	Duration time.Duration
}

// Retryable reports whether SPEC §7 retries after a: 5xx, connection errors
// and timeouts.
func (a Attempt) Retryable() bool { return a.Code == 0 || a.Code >= 500 && a.Code <= 599 }

// OK reports a 2xx.
func (a Attempt) OK() bool { return a.Code >= 200 && a.Code <= 299 }

func (a Attempt) String() string {
	switch {
	case a.TimedOut:
		return a.Err
	case a.Code == 0:
		return a.Err
	case a.Code >= 300 && a.Code <= 399:
		loc := ""
		if a.Location != "" {
			loc = " to " + a.Location
		}
		return fmt.Sprintf("HTTP %d: redirect%s not followed; point the url at the final endpoint", a.Code, loc)
	}
	return fmt.Sprintf("HTTP %d", a.Code)
}

// Post sends d once, within d.Timeout.
func Post(ctx context.Context, client *http.Client, d Delivery) Attempt {
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, d.Timeout)
	defer cancel()
	a := post(ctx, client, d)
	a.Duration = time.Since(start)
	if a.Code == 0 && ctx.Err() == context.DeadlineExceeded {
		a.TimedOut = true
		a.Err = fmt.Sprintf("timed out: no answer within %s", d.Timeout)
	}
	return a
}

func post(ctx context.Context, client *http.Client, d Delivery) Attempt {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.URL, bytes.NewReader(d.Body))
	if err != nil {
		return Attempt{Err: err.Error()}
	}
	for _, h := range d.Headers {
		req.Header.Add(h.Name, h.Value)
	}
	contentType := d.ContentType
	if contentType == "" {
		contentType = "application/json"
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("User-Agent", d.UserAgent)
	req.Header.Set("X-Noora-Event", d.Event)
	req.Header.Set("X-Noora-Delivery", d.ID)
	if d.Signature != "" {
		req.Header.Set("X-Noora-Signature-256", d.Signature)
	}
	resp, err := client.Do(req)
	if err != nil {
		return Attempt{Err: transportError(err)}
	}
	defer resp.Body.Close()
	// Bounded: the receiver is outside input. What is past responseRead is
	// never read; the connection is then closed rather than reused.
	var kept bytes.Buffer
	_, _ = io.Copy(&kept, io.LimitReader(resp.Body, ResponseKeep))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, responseRead-ResponseKeep))
	return Attempt{Code: resp.StatusCode, Location: resp.Header.Get("Location"), Header: resp.Header, Body: kept.Bytes()}
}

// transportError shortens Go's `Post "url": dial tcp ...: connection refused`
// to the part after the url, which the log line already names.
func transportError(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return "cannot connect: " + op.Err.Error()
	}
	return err.Error()
}

// Status of one delivery, as drain reports it.
type Status string

const (
	Delivered Status = "delivered"
	GaveUp    Status = "gave_up"
	Corrupt   Status = "corrupt"
)

// Result is what became of one spooled delivery.
type Result struct {
	Entry    Entry
	Delivery Delivery // zero when Corrupt
	Status   Status
	Attempts []Attempt
	Err      string // Corrupt: why; GaveUp: the last attempt
	Aside    string // Corrupt: where the file went
}

// Sender delivers the spool. One runs at a time (SenderLock): exec starts it
// in the background, `outbound drain` runs it in the foreground.
type Sender struct {
	Spool  Spool
	Client *http.Client
	// Idle is how long to wait for more work once the spool is empty.
	Idle time.Duration
	// RetryDelay is SPEC §7's one second; tests of the policy keep it.
	RetryDelay time.Duration
	// Report is called once per delivery, never concurrently; Retrying once
	// per failed first attempt that will be retried. Either may be nil.
	Report   func(Result)
	Retrying func(d Delivery, a Attempt)
	// Now stamps failures.
	Now func() time.Time

	mu sync.Mutex // serialises Report and failures.json
	// afterPass, in tests, runs when a pass found the spool empty, before
	// the lock is let go: the window the exit protocol covers.
	afterPass func()
}

// NewSender returns a sender of the spool with SPEC §7's policy.
func NewSender(sp Spool) *Sender {
	return &Sender{Spool: sp, Client: NewClient(), RetryDelay: RetryDelay, Now: time.Now}
}

// Run delivers until the spool is empty, waits Idle for more, releases lock
// and exits. It then looks once more: an exec that wrote a delivery while we
// were stopping saw the lock held and started no sender, so the delivery is
// ours. It takes the lock back (waiting for it when wait is true) and goes on;
// when another process has it, that one delivers. Run returns when ctx ends,
// leaving any delivery that was not finished in the spool.
func (s *Sender) Run(ctx context.Context, lock *SenderLock, wait bool) error {
	s.Spool.Sweep(s.Now())
	if err := s.Spool.Recount(); err != nil {
		lock.Unlock()
		return err
	}
	for {
		if err := s.deliverAll(ctx); err != nil {
			lock.Unlock()
			return err
		}
		if s.afterPass != nil {
			s.afterPass()
		}
		lock.Unlock()
		if ctx.Err() != nil {
			return nil
		}
		pending, err := s.Spool.Pending()
		if err != nil || len(pending) == 0 {
			return err
		}
		if !lock.Relock(ctx, wait) {
			return nil
		}
		lock.WritePID(os.Getpid())
	}
}

// deliverAll delivers what is pending, one worker per target, new
// deliveries included, until the spool has been empty for Idle.
func (s *Sender) deliverAll(ctx context.Context) error {
	type finished struct {
		key string
		err error
	}
	active := map[string]bool{}
	done := make(chan finished, maxTargets) // never blocks a worker, even after we returned
	var wg sync.WaitGroup
	defer wg.Wait()
	var fatal error
	var idleSince time.Time
	tick := time.NewTicker(poll)
	defer tick.Stop()
	for {
		entries, err := s.Spool.Pending()
		if err != nil {
			fatal = err
			entries = nil
		}
		// Event files become one file per delivery first, so that each
		// target's deliveries are all in view, in order.
		split := false
		for _, e := range entries {
			if e.Event && fatal == nil {
				split = true
				fatal = s.split(e)
			}
		}
		if split && fatal == nil {
			continue
		}
		groups := map[string][]Entry{}
		var order []string
		for _, e := range entries {
			if active[e.Key] {
				continue
			}
			if _, ok := groups[e.Key]; !ok {
				order = append(order, e.Key)
			}
			groups[e.Key] = append(groups[e.Key], e)
		}
		for _, key := range order {
			if len(active) >= maxTargets || fatal != nil {
				break
			}
			active[key] = true
			wg.Add(1)
			go func() {
				defer wg.Done()
				done <- finished{key, s.deliverTarget(ctx, groups[key])}
			}()
		}
		if len(active) == 0 && fatal == nil {
			if idleSince.IsZero() {
				idleSince = time.Now()
			}
			if time.Since(idleSince) >= s.Idle {
				return nil
			}
		} else {
			idleSince = time.Time{}
		}
		if fatal == nil {
			select {
			case f := <-done:
				delete(active, f.key)
				fatal = cmp.Or(fatal, f.err)
			case <-tick.C:
			case <-ctx.Done():
			}
		}
		if fatal != nil || ctx.Err() != nil {
			for len(active) > 0 {
				f := <-done
				delete(active, f.key)
				fatal = cmp.Or(fatal, f.err)
			}
			return fatal
		}
	}
}

// deliverTarget delivers the entries of one target in spool order. A
// corrupt file is moved aside and the next one goes. An error means the
// spool cannot be changed: the sender must stop.
func (s *Sender) deliverTarget(ctx context.Context, entries []Entry) error {
	for _, e := range entries {
		if ctx.Err() != nil {
			return nil
		}
		d, err := s.Spool.Read(e)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			if err := s.corrupt(e, err); err != nil {
				return err
			}
			continue
		}
		res, finished := s.deliver(ctx, e, d)
		if !finished {
			return nil // ctx ended mid-delivery: it stays for the next sender
		}
		if err := s.Spool.Remove(e); err != nil {
			// It would be sent again and again: stop instead.
			if res.Err != "" {
				res.Err += "; "
			}
			res.Err += err.Error()
			s.report(res)
			return err
		}
		s.report(res)
	}
	return nil
}

// split splits an event file; one that cannot be read is moved aside. An
// error means the spool cannot be changed: the sender must stop.
func (s *Sender) split(e Entry) error {
	err := s.Spool.Split(e)
	switch {
	case err == nil, errors.Is(err, os.ErrNotExist):
		return nil
	case errors.Is(err, ErrCorrupt):
		return s.corrupt(e, err)
	}
	return err
}

// corrupt moves a file that is no delivery aside and reports it. An error
// means it is still in the spool, where it would come back for ever.
func (s *Sender) corrupt(e Entry, why error) error {
	res := Result{Entry: e, Status: Corrupt, Err: why.Error()}
	aside, err := s.Spool.MoveAside(e)
	res.Aside = aside
	if err != nil {
		res.Err += "; " + err.Error()
	}
	s.report(res)
	if err != nil && !errors.Is(err, ErrRemovedInstead) {
		return err
	}
	return nil
}

// deliver applies SPEC §7: 2xx done; 3xx and 4xx given up at once; 5xx,
// connection errors and timeouts retried once after RetryDelay.
func (s *Sender) deliver(ctx context.Context, e Entry, d Delivery) (Result, bool) {
	res := Result{Entry: e, Delivery: d}
	for try := 1; try <= 2; try++ {
		a := Post(ctx, s.Client, d)
		if ctx.Err() != nil {
			return res, false
		}
		res.Attempts = append(res.Attempts, a)
		if a.OK() {
			res.Status = Delivered
			return res, true
		}
		retry := try == 1 && a.Retryable()
		s.recordFailure(d, try, a, !retry)
		if !retry {
			break
		}
		if s.Retrying != nil {
			s.mu.Lock()
			s.Retrying(d, a)
			s.mu.Unlock()
		}
		select {
		case <-ctx.Done():
			return res, false
		case <-time.After(s.RetryDelay):
		}
	}
	res.Status = GaveUp
	res.Err = res.Attempts[len(res.Attempts)-1].String()
	return res, true
}

func (s *Sender) report(r Result) {
	if s.Report == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Report(r)
}

func (s *Sender) recordFailure(d Delivery, attempt int, a Attempt, gaveUp bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = s.Spool.recordFailure(Failure{
		Target: d.Target, URL: d.URL, Event: d.Event, DeliveryID: d.ID,
		At: s.Now().UTC(), Attempt: attempt, Error: a.String(), GaveUp: gaveUp,
	})
}
