package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/noora-hooks/noora-hooks/compat"
	"github.com/noora-hooks/noora-hooks/config"
	"github.com/noora-hooks/noora-hooks/consent"
	"github.com/noora-hooks/noora-hooks/outbound"
	"github.com/noora-hooks/noora-hooks/plugins"
	"github.com/noora-hooks/noora-hooks/protocol"
	"github.com/noora-hooks/noora-hooks/runner"
)

// Engine is everything a command needs to fire events: the resolved paths, the
// parsed config, consent, and the sources of hooks in SPEC §3 order.
type Engine struct {
	Paths    config.Paths
	Config   *config.Config
	SafeMode bool
	// Accept is true when one of the three accept channels is on (SPEC §5).
	Accept bool
	Store  consent.Store
	env    *Env

	// mu guards allow: serve fires events concurrently, and consent may
	// record approvals while other events read them.
	mu    sync.Mutex
	allow *consent.Allowlist
	// plugins is created on first use (engine_plugins.go).
	plugins *plugins.Manager
	// Streams keeps the processes of `stream: true` shell hooks across
	// events; serve sets it, exec leaves it nil (a stream of one line).
	Streams *runner.Streams
	// PluginRetryAfter leaves a plugin that failed to start alone that
	// long (plugins.Options.RetryAfter); serve sets it.
	PluginRetryAfter time.Duration

	// dispatcher is built once, on first Fire, and kept: serve keeps an
	// Engine per config generation, so its sources stay warm.
	dispatchOnce sync.Once
	dispatcher   *runner.Dispatcher
}

// LoadEngine resolves paths, reads the config (printing its warnings) and the
// allowlist. A YAML syntax error is an error with exit 1.
func LoadEngine(g *Globals, env *Env) (*Engine, error) {
	paths, err := config.Resolve(g.Home, g.Config, env.Getenv)
	if err != nil {
		return nil, err
	}
	e := &Engine{Paths: paths, env: env}
	e.Store = consent.Store{Path: paths.Allowlist(), Warn: func(msg string) { env.Warnf("%s", msg) }}
	e.SafeMode = config.Truthy(env.Getenv("NOORA_SAFE_MODE"))
	if e.SafeMode {
		// The escape hatch works even with a broken config: nothing is read.
		e.Config = &config.Config{Path: paths.Config, Concurrency: config.DefaultConcurrency}
		return e, nil
	}
	cfg, err := config.Load(paths.Config)
	if err != nil {
		var se *config.SyntaxError
		if errors.As(err, &se) {
			return nil, &exitError{code: 1, err: se}
		}
		return nil, err
	}
	for _, w := range cfg.Warnings {
		env.Warnf("%s", w)
	}
	e.Config = cfg
	e.Accept = g.AcceptHooks || config.Truthy(env.Getenv("NOORA_ACCEPT_HOOKS")) || cfg.AutoAccept
	return e, nil
}

// Allowlist reads the allowlist once.
func (e *Engine) Allowlist() *consent.Allowlist {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.allowlist()
}

// allowlist is Allowlist with e.mu held.
func (e *Engine) allowlist() *consent.Allowlist {
	if e.allow == nil {
		e.allow = e.Store.Load()
	}
	return e.allow
}

// Fire fires event with kwargs kw at every source, with hooks running in cwd,
// and returns the report. exec and serve both fire through it (SPEC §12: serve
// answers exactly like exec). It is safe for concurrent use.
func (e *Engine) Fire(ctx context.Context, event protocol.Event, kw protocol.Kwargs, cwd string) runner.Report {
	if e.Filtered(event, kw) {
		return runner.Report{Combined: protocol.Combine(event.Name, kw, nil)}
	}
	e.dispatchOnce.Do(func() { e.dispatcher = e.Dispatcher() })
	return e.dispatcher.Fire(ctx, runner.Call{
		Event:  event,
		Kwargs: protocol.WithTelemetry(kw),
		Cwd:    cwd,
		Home:   e.Paths.Home,
		Env:    e.env.Environ(),
	})
}

// Dispatcher returns a dispatcher over every source of hooks: none in safe mode.
func (e *Engine) Dispatcher() *runner.Dispatcher {
	d := &runner.Dispatcher{Concurrency: e.Config.Concurrency}
	if e.SafeMode {
		return d
	}
	d.Sources = append(d.Sources, e.Plugins()) // plugins answer first (SPEC §3)
	d.Sources = append(d.Sources, &runner.ShellSource{Entries: e.Config.ShellHooks, Consent: e.consent, Dialects: compat.Dialects(), Streams: e.Streams})
	d.Sources = append(d.Sources, outbound.NewSource(e.Paths.Home, e.Config, Version)) // last (SPEC §3)
	return d
}

// consent approves a shell hook found in the allowlist, or approves and records
// it when an accept channel is on; otherwise the hook is skipped with a warning
// naming the ways to approve it (SPEC §5).
func (e *Engine) consent(h config.ShellHook) (bool, string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, ok := e.allowlist().Find(h.Event, h.Command); ok {
		return true, ""
	}
	if e.Accept {
		a := consent.NewApproval(h.Event, h.Command, e.env.Now())
		if err := e.Store.Record(a); err != nil {
			e.env.Warnf("%s hook %q: approved for this run, but the approval was not recorded: %v", h.Event, h.Command, err)
		}
		e.allow.Approvals = append(e.allow.Approvals, a)
		return true, ""
	}
	return false, fmt.Sprintf("%s hook %q is not approved and was skipped; approve it with \"noora-hooks approve\", or run with --accept-hooks, NOORA_ACCEPT_HOOKS=1 or hooks_auto_accept: true in %s",
		h.Event, h.Command, e.Paths.Config)
}

// Cwd is the working directory hooks run in.
func Cwd() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("find working directory: %w", err)
	}
	return wd, nil
}

// unknownEvent is the usage error for an event that is not in the catalogue:
// a close match when there is one, and always the valid list.
func unknownEvent(event string) error {
	msg := fmt.Sprintf("unknown event %q", event)
	if best, ok := protocol.Closest(event); ok {
		msg += fmt.Sprintf("; did you mean %q?", best)
	}
	return usageError("%s\nvalid events: %s", msg, strings.Join(protocol.EventNames(), ", "))
}

// shellHook is one configured entry ready to run outside the dispatcher (test,
// doctor), speaking its dialect when it has one, as exec would run it.
func (e *Engine) shellHook(h config.ShellHook) runner.Hook {
	var dialect runner.Dialect
	if h.Dialect != "" {
		dialect = compat.Dialects()[h.Dialect]
	}
	if h.URL != "" {
		return &runner.URLHook{Config: h, Dialect: dialect}
	}
	if h.Stream {
		return &runner.StreamHook{Config: h}
	}
	return &runner.ShellHook{Config: h, Dialect: dialect}
}
