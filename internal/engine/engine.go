// Package engine is the use-case layer of noora-hooks: it loads a home (config,
// allowlist, plugins, gateway hooks, outbound), applies policy (consent, the
// accept channels, safe mode), fires events, queues streaming events, reports
// the state of every hook and closes what it started. Every command and serve
// go through it; none of them selects or combines hooks itself.
//
// It must never print: warnings go to Options.Warn, results are returned.
package engine

import (
	"context"
	"os"
	"sync"
	"time"

	"github.com/noora-hooks/noora-hooks/internal/compat"
	"github.com/noora-hooks/noora-hooks/internal/config"
	"github.com/noora-hooks/noora-hooks/internal/consent"
	"github.com/noora-hooks/noora-hooks/internal/dispatch"
	"github.com/noora-hooks/noora-hooks/internal/journal"
	"github.com/noora-hooks/noora-hooks/internal/outbound"
	"github.com/noora-hooks/noora-hooks/internal/plugins"
	"github.com/noora-hooks/noora-hooks/internal/shellhook"
	"github.com/noora-hooks/noora-hooks/protocol"
)

// Version is the program version, set at build time with
// -ldflags "-X github.com/noora-hooks/noora-hooks/internal/engine.Version=...".
var Version = "0.1.0-dev"

// Options say where the home is and what the process around the engine is.
// Zero values take the real process's (os.Getenv, os.Environ, time.Now) and
// drop warnings.
type Options struct {
	Home   string // --home; empty: $NOORA_HOME, else ~/.noora
	Config string // --config; empty: <home>/config.yaml
	// AcceptHooks is --accept-hooks: approve and record every hook that fires.
	AcceptHooks bool
	// ReportUnsafe: a home, config or allowlist refused for its permissions
	// is a warning rather than an error, so that doctor reports every one.
	ReportUnsafe bool
	// Inspect loads the config even in safe mode, for the commands that show,
	// test and fix hooks (list, test, doctor): NOORA_SAFE_MODE stops hooks
	// from being registered for the agent (SPEC §1), and a user in safe mode
	// is exactly the one who needs to see them. SafeMode is still reported.
	Inspect bool
	// Origin is how firings reach this engine, for the run journal
	// (journal.go): exec when Via is empty.
	Origin Origin
	// NoJournal records no firing in the run journal.
	NoJournal bool
	// HookTest is a hook test (noora-hooks check): every shell hook counts as
	// approved, nothing is recorded (no approval, no journal entry), and no
	// outbound webhook is sent.
	HookTest bool

	Getenv  func(string) string
	Environ func() []string
	Now     func() time.Time
	// Warn receives each warning: config problems, policy decisions.
	Warn func(msg string)
	// PluginLog receives what plugin processes log on stderr, a line at a time.
	PluginLog func(plugin, line string)
}

func (o *Options) defaults() {
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.Environ == nil {
		o.Environ = os.Environ
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Warn == nil {
		o.Warn = func(string) {}
	}
	if o.PluginLog == nil {
		o.PluginLog = func(string, string) {}
	}
}

// Engine is one loaded home: the resolved paths, the parsed config, consent,
// and the sources of hooks in SPEC §3 order. It is safe for concurrent use.
type Engine struct {
	Paths    config.Paths
	Config   *config.Config
	SafeMode bool
	// Accept is true when one of the three accept channels is on (SPEC §5).
	Accept bool
	Store  consent.Store
	opts   Options

	// mu guards allow: serve fires events concurrently, and consent may
	// record approvals while other events read them.
	mu       sync.Mutex
	allow    *consent.Allowlist
	allowErr error // why the allowlist could not be read (consent.go)
	pending  []consent.Approval
	// plugins is created on first use (plugins.go).
	pluginsOnce sync.Once
	plugins     *plugins.Manager
	// Streams keeps the processes of `stream: true` shell hooks across
	// events; serve sets it, exec leaves it nil (a stream of one line).
	Streams *shellhook.Streams
	// PluginRetryAfter leaves a plugin that failed to start alone that
	// long (plugins.Options.RetryAfter); serve sets it.
	PluginRetryAfter time.Duration

	// dispatcher is built once, on first use, and kept: serve keeps an
	// Engine per config generation, so its sources stay warm.
	dispatchOnce sync.Once
	dispatcher   *dispatch.Dispatcher

	// journal is the run journal, nil when off (journal.go).
	journal *journal.Writer
}

// Load resolves paths, reads the config (its warnings go to opts.Warn) and
// prepares consent. A YAML syntax error is a *config.SyntaxError.
func Load(opts Options) (*Engine, error) {
	opts.defaults()
	paths, err := config.Resolve(opts.Home, opts.Config, opts.Getenv)
	if err != nil {
		return nil, err
	}
	e := &Engine{Paths: paths, opts: opts}
	e.Store = consent.Store{Path: paths.Allowlist(), Warn: opts.Warn}
	e.SafeMode = config.Truthy(opts.Getenv("NOORA_SAFE_MODE"))
	if e.SafeMode && !opts.Inspect {
		// The escape hatch works even with a broken config: nothing is read.
		e.Config = &config.Config{Path: paths.Config, Concurrency: config.DefaultConcurrency}
		e.openJournal()
		return e, nil
	}
	if err := checkHomePermissions(paths, opts); err != nil {
		return nil, err
	}
	cfg, err := config.Load(paths.Config)
	if err != nil {
		return nil, err
	}
	for _, w := range cfg.Warnings {
		opts.Warn(w.String())
	}
	e.Config = cfg
	e.openJournal()
	e.Accept = opts.AcceptHooks || config.Truthy(opts.Getenv("NOORA_ACCEPT_HOOKS")) || cfg.AutoAccept
	return e, nil
}

// Getenv reads the caller's environment.
func (e *Engine) Getenv(key string) string { return e.opts.Getenv(key) }

// Environ is the environment hooks get: the caller's.
func (e *Engine) Environ() []string { return e.opts.Environ() }

// Allowlist reads the allowlist once.
func (e *Engine) Allowlist() *consent.Allowlist {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.allowlist()
}

// allowlist is Allowlist with e.mu held.
func (e *Engine) allowlist() *consent.Allowlist {
	if e.allow == nil {
		e.allow, e.allowErr = e.Store.LoadChecked()
	}
	return e.allow
}

// Call is the dispatch call for one firing of event, with hooks running in cwd.
func (e *Engine) Call(event protocol.Event, kw protocol.Kwargs, cwd string) dispatch.Call {
	return dispatch.Call{
		Event:  event,
		Kwargs: protocol.WithTelemetry(kw),
		Cwd:    cwd,
		Home:   e.Paths.Home,
		Env:    e.opts.Environ(),
	}
}

// Fire fires event with kwargs kw at every source, with hooks running in cwd,
// and returns the report. exec, the bridge and serve all fire through it
// (SPEC §12: serve answers exactly like exec). The firing is queued for the
// run journal, with Options.Origin.
func (e *Engine) Fire(ctx context.Context, event protocol.Event, kw protocol.Kwargs, cwd string) dispatch.Report {
	return e.FireFrom(ctx, e.opts.Origin, event, kw, cwd)
}

// FireFrom is Fire for a firing that reached the engine another way than
// Options.Origin says: the bridge's, with the agent's dialect and event.
func (e *Engine) FireFrom(ctx context.Context, origin Origin, event protocol.Event, kw protocol.Kwargs, cwd string) dispatch.Report {
	if e.Filtered(event, kw) {
		return dispatch.Report{Combined: protocol.Combine(event.Name, kw, nil)}
	}
	start := time.Now()
	report := e.Dispatcher().Fire(ctx, e.Call(event, kw, cwd))
	e.record(origin, start, event, kw, cwd, report)
	return report
}

// Dispatcher returns the dispatcher over every source of hooks (none in safe
// mode), built on first use.
func (e *Engine) Dispatcher() *dispatch.Dispatcher {
	e.dispatchOnce.Do(func() {
		d := &dispatch.Dispatcher{Concurrency: e.Config.Concurrency}
		if !e.SafeMode {
			d.Sources = append(d.Sources, e.Plugins()) // plugins answer first (SPEC §3)
			shell := &shellhook.ShellSource{Entries: e.Config.ShellHooks, Consent: e.consent, Dialects: compat.Dialects(), Streams: e.Streams}
			if e.opts.HookTest {
				// Every hook counts as approved, and nothing is recorded;
				// outbound webhooks only observe: a test sends none.
				shell.Consent = func(config.ShellHook, dispatch.Call) (shellhook.Verdict, string) { return shellhook.Allow, "" }
				d.Sources = append(d.Sources, shell)
			} else {
				d.Sources = append(d.Sources, recordingSource{shell, e})
				d.Sources = append(d.Sources, outbound.NewSource(e.Paths.Home, e.Config, Version)) // last (SPEC §3)
			}
		}
		e.dispatcher = d
	})
	return e.dispatcher
}

// ShellHook is one configured entry ready to run outside the dispatcher (test,
// doctor), speaking its dialect when it has one, as exec would run it.
func (e *Engine) ShellHook(h config.ShellHook) dispatch.Hook {
	var dialect shellhook.Dialect
	if h.Dialect != "" {
		dialect = compat.Dialects()[h.Dialect]
	}
	if h.URL != "" {
		return &shellhook.URLHook{Config: h, Dialect: dialect}
	}
	if h.Stream {
		return &shellhook.StreamHook{Config: h}
	}
	return &shellhook.ShellHook{Config: h, Dialect: dialect}
}

// Close stops what the engine started: the plugin processes (it waits for
// them to be gone), and the run journal once what it holds is written.
func (e *Engine) Close() error {
	if e.plugins != nil {
		e.plugins.Close()
	}
	e.journal.Close(journalGrace)
	return nil
}
