package server

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"
)

// DefaultBodyTimeout is the default of Options.BodyTimeout.
const DefaultBodyTimeout = 10 * time.Second

// bodyGrant is how much more time each MiB of body that arrives earns: a
// large body on a loaded machine keeps arriving, a stalled one does not.
const bodyGrant = time.Second

// readBody reads a request's whole body, bounded by MaxPayload bytes and in
// time by BodyTimeout from now plus bodyGrant per MiB received, or answers
// the error and returns ok=false. It runs before the request takes an event
// slot: a client that sends 5 of 1,000 bytes is cut off after BodyTimeout.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) (data []byte, ok bool) {
	timeout := s.opts.BodyTimeout
	if timeout <= 0 {
		timeout = DefaultBodyTimeout
	}
	rc := http.NewResponseController(w)
	deadline := time.Now().Add(timeout)
	deadlineSet := rc.SetReadDeadline(deadline) == nil
	body := &grantingReader{r: http.MaxBytesReader(w, r.Body, s.opts.MaxPayload), grant: func() {
		if deadlineSet {
			deadline = deadline.Add(bodyGrant)
			_ = rc.SetReadDeadline(deadline)
		}
	}}
	data, err := io.ReadAll(body)
	if err == nil {
		if deadlineSet {
			_ = rc.SetReadDeadline(time.Time{})
		}
		return data, true
	}
	// The deadline stays: net/http reads what is left of a body before it
	// answers, and must not wait for the client that stalled.
	w.Header().Set("Connection", "close")
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("payload larger than %s", size(s.opts.MaxPayload)), nil)
	case errors.Is(err, os.ErrDeadlineExceeded):
		s.logf("a request for %s did not send its body in time (%v, and %v more per MiB received); refused", r.URL.Path, timeout, bodyGrant)
		writeError(w, http.StatusRequestTimeout, fmt.Sprintf("the payload did not arrive in time (%v, and %v more per MiB received)", timeout, bodyGrant), nil)
	default:
		writeError(w, http.StatusBadRequest, "read payload: "+err.Error(), nil)
	}
	return nil, false
}

// grantingReader calls grant after each MiB read through it.
type grantingReader struct {
	r     io.Reader
	n     int64
	grant func()
}

func (g *grantingReader) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	before := g.n
	g.n += int64(n)
	for i := before>>20 + 1; i <= g.n>>20; i++ {
		g.grant()
	}
	return n, err
}
