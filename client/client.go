// Package client talks to a running `noora-hooks serve` (SPEC §12): it fires
// events and reads the hook listing over HTTP on a unix socket or loopback TCP.
// It must never retry an event on its own: a caller that gets an error decides
// whether to fire in-process instead, because a hook may already have run.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/noora-hooks/noora-hooks/internal/paths"
)

// Headers of the protocol between client and server (documented in the README).
const (
	// HeaderCwd is the caller's working directory: hooks run there. Absent,
	// they run in serve's working directory.
	HeaderCwd = "X-Noora-Cwd"
	// HeaderConfig and HeaderHome name the config file and home the caller
	// resolved; a server that serves other files refuses with 409 Conflict.
	HeaderConfig = "X-Noora-Config"
	HeaderHome   = "X-Noora-Home"
	// HeaderAcceptHooks: the caller approves every hook (--accept-hooks); a
	// server that does not refuses with 409, so the caller can fire in-process.
	HeaderAcceptHooks = "X-Noora-Accept-Hooks"
	// HeaderWarning carries one warning of the run as a JSON string with every
	// non-ASCII character escaped; it is repeated once per warning.
	HeaderWarning = "X-Noora-Warning"
)

// MaxAnswer bounds the answer body read from a server: an answer holds at most
// the merged tool args (the kwargs are bounded by exec's 64 MiB) plus, with a
// trace, every hook's parsed answer (1 MiB of stdout each).
const MaxAnswer = 256 << 20

// maxError bounds the body of an error response we read.
const maxError = 64 << 10

// ErrUnavailable is returned when no server answers at the address: nothing
// was sent, so firing in-process instead runs every hook exactly once.
var ErrUnavailable = errors.New("no noora-hooks serve answers")

// StatusError is a response other than 200 OK (or 202 Accepted for an event
// of the streaming family): the server refused the request.
type StatusError struct {
	Code    int
	Message string // the server's "error" member, or the status text
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("%d %s: %s", e.Code, http.StatusText(e.Code), e.Message)
}

// Addr is where a server listens.
type Addr struct {
	Network string // "unix" or "tcp"
	Address string // socket path, or host:port
}

func (a Addr) String() string {
	if a.Network == "unix" {
		return "unix:" + a.Address
	}
	return a.Address
}

// ParseAddr reads an address as serve's --listen and NOORA_HOOKS_SERVER give
// it: unix:PATH, a path (/..., ./..., ~/...), host:port, or http://host:port.
func ParseAddr(s string) (Addr, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return Addr{}, errors.New("empty address")
	case strings.HasPrefix(s, "unix:"):
		p := strings.TrimPrefix(s, "unix:")
		if p == "" {
			return Addr{}, fmt.Errorf("address %q: the socket path after \"unix:\" is missing", s)
		}
		return Addr{Network: "unix", Address: paths.ExpandTilde(p)}, nil
	case strings.HasPrefix(s, "/"), strings.HasPrefix(s, "./"), strings.HasPrefix(s, "../"), s == "~", strings.HasPrefix(s, "~/"):
		return Addr{Network: "unix", Address: paths.ExpandTilde(s)}, nil
	case strings.HasPrefix(s, "http://"):
		u, err := url.Parse(s)
		if err != nil {
			return Addr{}, fmt.Errorf("address %q: %w", s, err)
		}
		if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil {
			return Addr{}, fmt.Errorf("address %q: give only http://host:port", s)
		}
		s = u.Host
	case strings.Contains(s, "://"):
		return Addr{}, fmt.Errorf("address %q: only unix:PATH, host:port and http://host:port are supported", s)
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil || port == "" {
		return Addr{}, fmt.Errorf("address %q: expected unix:PATH or host:port", s)
	}
	return Addr{Network: "tcp", Address: net.JoinHostPort(host, port)}, nil
}

// Client fires events at one server. It is safe for concurrent use and keeps
// connections alive between calls.
type Client struct {
	addr  Addr
	token string
	http  *http.Client
	base  string
}

// New returns a client for the server at addr. token, when not empty, is sent
// as a bearer token (serve on TCP requires one).
func New(addr Addr, token string) *Client {
	dialer := &net.Dialer{Timeout: 5 * time.Second}
	transport := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return dialer.DialContext(ctx, addr.Network, addr.Address)
		},
		MaxIdleConns:        64,
		MaxIdleConnsPerHost: 64,
		IdleConnTimeout:     90 * time.Second,
		// Warnings ride in headers; 1 MiB leaves room for every hook's.
		MaxResponseHeaderBytes: 1 << 20,
		DisableCompression:     true,
	}
	host := "noora-hooks" // any name: the dialer ignores it on a socket
	if addr.Network == "tcp" {
		host = addr.Address
	}
	return &Client{
		addr:  addr,
		token: token,
		// No overall timeout: a hook may legitimately run 300 s (SPEC §2),
		// and the caller's context bounds the wait.
		http: &http.Client{Transport: transport},
		base: "http://" + host,
	}
}

// Addr returns the server's address.
func (c *Client) Addr() Addr { return c.addr }

// FireOptions are the caller's context for one event.
type FireOptions struct {
	Cwd         string // where hooks run; "" for serve's own working directory
	Trace       bool   // ask for "hooks" in the answer
	Config      string // the config file the caller expects the server to serve; "" for any
	Home        string // the home the caller expects; "" for any
	AcceptHooks bool   // the caller approves every hook
}

// Answer is a server's answer to one event.
type Answer struct {
	// Body is exactly what `exec` would print on stdout.
	Body []byte
	// Warnings are what `exec` would print on stderr, in order, without the
	// "noora-hooks: warning: " prefix.
	Warnings []string
	// Queued: the server answered 202 Accepted: an event of the streaming
	// family was queued for its hooks, which run after the answer (their
	// warnings go to serve's log).
	Queued bool
}

// Fire fires event with kwargs (a JSON object; empty for none) and returns the
// answer. Errors: ErrUnavailable when no server answers, *StatusError when the
// server refused, others when the exchange broke midway (a hook may have run).
func (c *Client) Fire(ctx context.Context, event string, kwargs []byte, o FireOptions) (Answer, error) {
	u := c.base + "/v1/events/" + url.PathEscape(event)
	if o.Trace {
		u += "?trace=1"
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(kwargs))
	if err != nil {
		return Answer{}, fmt.Errorf("fire %s: %w", event, err)
	}
	req.Header.Set("Content-Type", "application/json")
	setIf(req.Header, HeaderCwd, o.Cwd)
	setIf(req.Header, HeaderConfig, o.Config)
	setIf(req.Header, HeaderHome, o.Home)
	if o.AcceptHooks {
		req.Header.Set(HeaderAcceptHooks, "1")
	}
	body, resp, err := c.do(req, MaxAnswer)
	if err != nil {
		return Answer{}, fmt.Errorf("fire %s at %s: %w", event, c.addr, err)
	}
	a := Answer{Body: body, Queued: resp.StatusCode == http.StatusAccepted}
	for _, h := range resp.Header.Values(HeaderWarning) {
		var w string
		if json.Unmarshal([]byte(h), &w) != nil {
			w = h // not ours to judge: show it as it came
		}
		a.Warnings = append(a.Warnings, w)
	}
	return a, nil
}

// Hooks returns the listing of GET /v1/hooks (JSON).
func (c *Client) Hooks(ctx context.Context) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/v1/hooks", nil)
	if err != nil {
		return nil, err
	}
	body, _, err := c.do(req, MaxAnswer)
	if err != nil {
		return nil, fmt.Errorf("list hooks at %s: %w", c.addr, err)
	}
	return body, nil
}

// Health checks that the server answers GET /healthz.
func (c *Client) Health(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/healthz", nil)
	if err != nil {
		return err
	}
	if _, _, err := c.do(req, maxError); err != nil {
		return fmt.Errorf("health of %s: %w", c.addr, err)
	}
	return nil
}

// Close drops the idle connections.
func (c *Client) Close() { c.http.CloseIdleConnections() }

// do sends req and reads a 200 (or 202) answer of at most limit bytes.
func (c *Client) do(req *http.Request, limit int64) ([]byte, *http.Response, error) {
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		var op *net.OpError
		if errors.As(err, &op) && op.Op == "dial" {
			return nil, nil, fmt.Errorf("%w: %v", ErrUnavailable, op.Err)
		}
		return nil, nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusAccepted {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, maxError))
		msg := strings.TrimSpace(string(data))
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(data, &e) == nil && e.Error != "" {
			msg = e.Error
		}
		if msg == "" {
			msg = http.StatusText(resp.StatusCode)
		}
		return nil, resp, &StatusError{Code: resp.StatusCode, Message: msg}
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, resp, fmt.Errorf("read answer: %w", err)
	}
	if int64(len(body)) > limit {
		return nil, resp, fmt.Errorf("answer larger than %d MiB", limit>>20)
	}
	return body, resp, nil
}

func setIf(h http.Header, key, value string) {
	if value != "" {
		h.Set(key, value)
	}
}

// ReadToken reads a bearer token from file: its content, blanks trimmed.
func ReadToken(file string) (string, error) {
	f, err := os.Open(file)
	if err != nil {
		return "", fmt.Errorf("read token: %w", err)
	}
	defer f.Close()
	const maxToken = 4 << 10 // a token is a line, not a document
	data, err := io.ReadAll(io.LimitReader(f, maxToken+1))
	if err != nil {
		return "", fmt.Errorf("read token %s: %w", file, err)
	}
	if len(data) > maxToken {
		return "", fmt.Errorf("read token %s: larger than %d KiB; is it the right file?", file, maxToken>>10)
	}
	token := strings.TrimSpace(string(data))
	if token == "" {
		return "", fmt.Errorf("read token %s: the file is empty", file)
	}
	if strings.ContainsAny(token, "\r\n\t ") {
		return "", fmt.Errorf("read token %s: the token must be one word without blanks", file)
	}
	return token, nil
}
