package shellhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/noora-hooks/noora-hooks/internal/config"
	"github.com/noora-hooks/noora-hooks/internal/dispatch"
	"github.com/noora-hooks/noora-hooks/internal/runner"
)

// URLHook POSTs the payload of a call to a URL and reads the response body
// as the answer (SPEC §2, "URL hooks"), exactly as a shell hook's stdout is
// read: by Noora's rules, or by its dialect's (Claude Code's http hooks).
// A 2xx response is a hook that exited 0; anything else (another status, a
// refused connection, the timeout) is a failed hook, which fail_closed turns
// into a block. Redirects are not followed: the URL that was approved is the
// one that answers.
type URLHook struct {
	Config  config.ShellHook
	Dialect Dialect
	// Client sends the request; nil uses a client that follows no redirect.
	Client *http.Client
	// Getenv reads the variables that header values name; nil reads
	// call.Env.
	Getenv func(string) string
}

// URLResponseLimit bounds the response body kept: the same bound as a
// command's stdout (runner.StdoutLimit, 1 MiB); a longer body counts as cut.
const URLResponseLimit = runner.StdoutLimit

// Sequence implements dispatch.Sequenced: the entry's `sequence:`.
func (h *URLHook) Sequence() string { return h.Config.Sequence }

// Describe implements Hook.
func (h *URLHook) Describe() dispatch.HookInfo {
	return dispatch.HookInfo{Source: "url", Name: h.Config.URL, Where: h.Config.Where()}
}

// Run implements Hook.
func (h *URLHook) Run(ctx context.Context, call dispatch.Call) dispatch.Result {
	res := dispatch.Result{HookInfo: h.Describe(), Status: dispatch.StatusOK}
	reader := &ShellHook{Config: h.Config, Dialect: h.Dialect}
	body := call.Payload()
	if h.Dialect != nil {
		body = h.Dialect.Stdin(h.Config, call)
	}
	timeout := h.Config.Timeout
	if timeout <= 0 {
		timeout = config.DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.Config.URL, bytes.NewReader(body))
	if err != nil {
		res.Status = dispatch.StatusError
		return reader.failed(res, err.Error(), "cannot build the request: "+err.Error())
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "noora-hooks")
	req.Header.Set("X-Noora-Event", call.Event.Name)
	getenv := h.Getenv
	if getenv == nil {
		getenv = func(name string) string { return lookup(call.Env, name) }
	}
	for _, hd := range h.Config.Headers {
		req.Header.Set(hd.Name, config.ExpandHeader(hd.Value, h.Config.AllowedEnvVars, getenv))
	}
	client := h.Client
	if client == nil {
		client = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		res.Duration = time.Since(start)
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			res.Status = dispatch.StatusTimeout
			secs := int(timeout / time.Second)
			return reader.failed(res, fmt.Sprintf("timed out after %ds", secs), fmt.Sprintf("no answer within %ds; the request was abandoned", secs))
		}
		res.Status = dispatch.StatusError
		return reader.failed(res, "request failed: "+err.Error(), "request failed: "+err.Error())
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, URLResponseLimit+1))
	res.Duration = time.Since(start)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			res.Status = dispatch.StatusTimeout
			secs := int(timeout / time.Second)
			return reader.failed(res, fmt.Sprintf("timed out after %ds", secs), fmt.Sprintf("the answer did not arrive within %ds", secs))
		}
		res.Status = dispatch.StatusError
		return reader.failed(res, "reading the answer failed: "+err.Error(), "reading the answer failed: "+err.Error())
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		res.Status = dispatch.StatusError
		what := "HTTP " + resp.Status
		if s := Excerpt(strings.TrimSpace(string(data))); s != "" {
			what += ": " + s
		}
		return reader.failed(res, what, "answered "+what)
	}
	out := runner.Outcome{End: runner.Exited, Code: 0, Stdout: data, Duration: res.Duration}
	if len(data) > URLResponseLimit {
		out.Stdout, out.StdoutTruncated = data[:URLResponseLimit], true
	}
	res.Outcome = &out
	return reader.read(res, call, out)
}

func lookup(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], name+"="); ok {
			return v
		}
	}
	return ""
}
