package server

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"
)

// DefaultBodyTimeout is the default of Options.BodyTimeout: a body of
// MaxPayload (64 MiB) arrives on a socket in well under a second.
const DefaultBodyTimeout = 10 * time.Second

// readBody reads a request's whole body, bounded by MaxPayload bytes and by
// BodyTimeout from now, or answers the error and returns ok=false. It runs
// before the request takes an event slot.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) (data []byte, ok bool) {
	timeout := s.opts.BodyTimeout
	if timeout <= 0 {
		timeout = DefaultBodyTimeout
	}
	rc := http.NewResponseController(w)
	deadlineSet := rc.SetReadDeadline(time.Now().Add(timeout)) == nil
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opts.MaxPayload))
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
		s.logf("a request for %s did not send its body within %v; refused", r.URL.Path, timeout)
		writeError(w, http.StatusRequestTimeout, fmt.Sprintf("the payload did not arrive within %v", timeout), nil)
	default:
		writeError(w, http.StatusBadRequest, "read payload: "+err.Error(), nil)
	}
	return nil, false
}
