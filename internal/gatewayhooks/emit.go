package gatewayhooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/noora-hooks/noora-hooks/internal/runner"
	"github.com/noora-hooks/noora-hooks/internal/shellhook"

	"github.com/noora-hooks/noora-hooks/internal/plugins"
	"github.com/noora-hooks/noora-hooks/protocol"
)

// Emitter fires gateway events at the handlers.
type Emitter struct {
	Handlers []*Handler
	Home     string
	// Env is the caller's environment; NOORA_HOME and NOORA_GATEWAY_EVENT
	// are added.
	Env []string
	// Cwd is the caller's working directory: handler.py runs in it. A
	// command handler runs in its own hook directory.
	Cwd string
	// Python runs handler.py; "" means python3.
	Python string
	// StartTimeout bounds loading handler.py (0: the plugin default).
	StartTimeout time.Duration
	// Log gets each line a handler writes to stderr.
	Log func(hook, line string)

	// ConfigPath is the config file: handler.py gets it as the agent's
	// config (hermes_cli.config.load_config).
	ConfigPath string
	// Background bounds how long a handler.py's process lets the asyncio
	// tasks and threads that handle() left running finish
	// (gateway_hooks.background_timeout); 0: not at all.
	Background time.Duration
	// WaitBackground makes Emit wait for that work before it returns;
	// otherwise the processes finish it on their own, logging to BackgroundLog.
	WaitBackground bool
	BackgroundLog  string

	hostConfig     sync.Once
	hostConfigJSON json.RawMessage
	hostConfigErr  string
}

// Result is what one handler did.
type Result struct {
	Handler *Handler
	// Value is the handler's JSON answer; nil when it gave none (or null).
	Value    json.RawMessage
	Err      error // the handler failed; Value is nil
	Duration time.Duration
}

// Emit runs every handler of event, one after the other in the order of
// Matching, and returns what each did. A handler that fails does not stop
// the others.
func (e *Emitter) Emit(ctx context.Context, event string, eventContext protocol.Object) []Result {
	if eventContext == nil {
		eventContext = protocol.Object{}
	}
	var out []Result
	var busy busyHandlers
	defer busy.wait()
	for _, h := range Matching(e.Handlers, event) {
		start := time.Now()
		var r Result
		if h.Command != nil {
			r = e.runCommand(ctx, h, event, eventContext)
		} else {
			r = e.runPython(ctx, h, event, eventContext, &busy)
		}
		r.Handler, r.Duration = h, time.Since(start)
		out = append(out, r)
	}
	return out
}

// Values returns the non-null answers, in handler order: what `gateway emit`
// prints.
func Values(results []Result) []json.RawMessage {
	out := []json.RawMessage{}
	for _, r := range results {
		if r.Value != nil {
			out = append(out, r.Value)
		}
	}
	return out
}

func (e *Emitter) env(event string) []string {
	return runner.Environ(e.Env, "NOORA_HOOK_EVENT", "NOORA_HOME="+e.Home, "NOORA_GATEWAY_EVENT="+event, plugins.AgentHomeVar+"="+e.Home)
}

func (e *Emitter) log(h *Handler) func(string) {
	if e.Log == nil {
		return nil
	}
	return func(line string) { e.Log(h.Name, line) }
}

// runPython loads handler.py in the embedded host (one process per emit) and
// calls handle(event_type, context), sync or async.
func (e *Emitter) runPython(ctx context.Context, h *Handler, event string, eventContext protocol.Object, busy *busyHandlers) Result {
	python := e.Python
	if python == "" {
		python = plugins.DefaultPython
	}
	proc, err := plugins.StartProcess(ctx, plugins.ProcessSpec{
		Name: h.Name, Argv: plugins.HostArgv(python, "gateway", h.Dir, h.Name),
		Dir: h.Dir, Env: e.env(event), StartTimeout: e.StartTimeout, Log: e.log(h),
		Init: e.hostInit(),
	})
	if err != nil {
		return Result{Err: fmt.Errorf("handler.py cannot run: %w", err)}
	}
	defer e.finish(ctx, h, proc, busy)
	kwargs, _ := protocol.Object{
		{Key: "event_type", Value: protocol.String(event)},
		{Key: "context", Value: protocol.Raw(eventContext)},
	}.MarshalJSON()
	m, err := proc.Invoke(ctx, h.Timeout, "handle", 0, "handle", kwargs, e.Cwd)
	var cbErr *plugins.CallbackError
	switch {
	case errors.As(err, &cbErr):
		return Result{Err: fmt.Errorf("handle() raised %v", cbErr)}
	case err != nil:
		return Result{Err: fmt.Errorf("handle(): %w", err)}
	}
	return Result{Value: nonNull(m.Value.Raw)}
}

// runCommand runs a handler in any language: {"event_type", "context"} on
// stdin, one JSON value (or nothing) on stdout.
func (e *Emitter) runCommand(ctx context.Context, h *Handler, event string, eventContext protocol.Object) Result {
	payload, _ := protocol.Object{
		{Key: "event_type", Value: protocol.String(event)},
		{Key: "context", Value: protocol.Raw(eventContext)},
	}.MarshalJSON()
	out := runner.Run(ctx, runner.Command{
		Argv: h.Command, Dir: h.Dir, Env: e.env(event),
		Stdin: append(payload, '\n'), Timeout: h.Timeout,
	})
	// A failure quotes stderr in its error; a success's stderr is its log.
	if log := e.log(h); log != nil && out.End == runner.Exited && out.Code == 0 {
		for _, line := range strings.Split(strings.TrimRight(string(out.Stderr), "\n"), "\n") {
			if line != "" {
				log(line)
			}
		}
	}
	switch {
	case out.End == runner.StartFailed:
		return Result{Err: fmt.Errorf("cannot start: %w", out.Err)}
	case out.End == runner.TimedOut:
		return Result{Err: fmt.Errorf("timed out after %s; its process group was killed", h.Timeout)}
	case out.Code != 0:
		what := out.ExitText()
		if s := shellhook.Excerpt(strings.TrimSpace(string(out.Stderr))); s != "" {
			what += ": " + s
		}
		return Result{Err: fmt.Errorf("%s; its output was ignored", what)}
	case out.StdoutTruncated:
		return Result{Err: fmt.Errorf("stdout is over %d MiB; ignored", runner.StdoutLimit>>20)}
	}
	v, ok, err := protocol.Parse(out.Stdout)
	switch {
	case err != nil:
		return Result{Err: fmt.Errorf("stdout is not valid JSON; ignored: %s", shellhook.Excerpt(strings.TrimSpace(string(out.Stdout))))}
	case !ok:
		return Result{}
	}
	return Result{Value: nonNull(v.Raw)}
}

func nonNull(raw string) json.RawMessage {
	raw = strings.TrimSpace(raw)
	if raw == "" || raw == "null" {
		return nil
	}
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(raw)); err != nil {
		return json.RawMessage(raw)
	}
	return b.Bytes()
}
