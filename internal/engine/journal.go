package engine

import (
	"path/filepath"
	"time"

	"github.com/noora-hooks/noora-hooks/internal/config"
	"github.com/noora-hooks/noora-hooks/internal/dispatch"
	"github.com/noora-hooks/noora-hooks/internal/gatewayhooks"
	"github.com/noora-hooks/noora-hooks/internal/journal"
	"github.com/noora-hooks/noora-hooks/internal/outbound"
	"github.com/noora-hooks/noora-hooks/internal/shellhook"
	"github.com/noora-hooks/noora-hooks/internal/traces"
	"github.com/noora-hooks/noora-hooks/protocol"
)

// journalGrace is how long a command that fired an event waits, after its
// answer is out, for the run journal to be written before it exits.
const journalGrace = 2 * time.Second

// Origin says how a firing reached the engine, for the run journal.
type Origin struct {
	Via        string // exec (the default), bridge, serve, test, gateway, embed
	Dialect    string // claude, cursor, gemini, codex: the payload was that tool's
	AgentEvent string // that tool's event name
}

// oneShot: the process fires, prints its answer and exits (exec, the
// bridge, test), so its journal is written by Close, after the answer;
// serve and embedders keep a writer goroutine.
func (o Origin) oneShot() bool { return o.Via != "serve" && o.Via != "embed" }

// openJournal is the engine's run journal: nil (off) with `journal: false`,
// unless traces are exported (OTEL_EXPORTER_OTLP_ENDPOINT), which it feeds.
// A hook test and Options.NoJournal record nothing.
func (e *Engine) openJournal() {
	if e.opts.NoJournal || e.opts.HookTest {
		return
	}
	e.journal = openJournal(e.opts, e.Paths.Home, e.Config, e.opts.Origin.oneShot())
}

// openJournal is the run journal of a home with config cfg (nil: none
// read), or nil when it is off and no traces are exported.
func openJournal(opts Options, home string, cfg *config.Config, oneShot bool) *journal.Writer {
	off := cfg != nil && cfg.JournalOff
	exporter := traces.FromEnv(opts.Getenv, opts.Warn)
	if off && exporter == nil {
		return nil
	}
	jo := journal.Options{Warn: opts.Warn, Discard: off, OneShot: oneShot}
	if exporter != nil {
		jo.Export = exportSpans(opts, exporter, home, cfg.SpoolLimit())
	}
	return journal.NewWriter(journal.PathIn(home), jo)
}

// exportSpans spools the spans of each firing for the collector, nested
// under the caller's TRACEPARENT when it has one, and makes sure a sender
// runs: serve's, or the background sender of one-shot commands.
func exportSpans(opts Options, x *traces.Exporter, home string, spoolLimit int) func(journal.Record) {
	var parent *traces.Parent
	if p, ok := traces.ParseTraceparent(opts.Getenv("TRACEPARENT")); ok {
		parent = &p
	}
	if abs, err := filepath.Abs(home); err == nil {
		home = abs // the sender runs elsewhere
	}
	spool := outbound.Spool{Dir: outbound.DirOf(home), Limit: spoolLimit}
	warned := false
	return func(rec journal.Record) {
		d, err := x.Delivery(rec, parent, Version)
		if err == nil {
			err = spool.Add(d)
		}
		if err == nil {
			err = outbound.EnsureSender(home, spool, opts.Environ())
		}
		if err != nil && !warned {
			warned = true
			opts.Warn("traces for " + x.URL + ": " + err.Error() + "; spans of this run are not exported")
		}
	}
}

// record queues one firing for the run journal; it never waits for the disk.
func (e *Engine) record(origin Origin, start time.Time, event protocol.Event, kw protocol.Kwargs, cwd string, report dispatch.Report) {
	if e.journal == nil {
		return
	}
	via := origin.Via
	if via == "" {
		via = "exec"
	}
	e.journal.Add(journal.Firing{
		Time: e.opts.Now(), Via: via, Dialect: origin.Dialect, AgentEvent: origin.AgentEvent,
		SafeMode: e.SafeMode, Event: event.Name, Kwargs: kw, Cwd: cwd,
		Report: report, Duration: time.Since(start),
		Unregistered: func() []dispatch.Skip { return e.unregistered(event.Name) },
	})
}

// unregistered lists the shell hooks of event that safe mode kept from
// running. Safe mode reads no config (SPEC §1), so the journal's goroutine
// reads it here, after the answer, and says nothing when it cannot.
func (e *Engine) unregistered(event string) []dispatch.Skip {
	cfg, err := config.Load(e.Paths.Config)
	if err != nil {
		return nil
	}
	var out []dispatch.Skip
	for _, h := range cfg.ShellHooks {
		if h.Event == event {
			info := dispatch.HookInfo{Source: "shell", Name: h.Command, Where: h.Where()}
			out = append(out, dispatch.Skip{Hook: info, Where: info.Where, Reason: dispatch.SkipSafeMode, Detail: "NOORA_SAFE_MODE is on"})
		}
	}
	return out
}

// recordTrial records a `test` run: its hooks ran approved or not, on a
// synthetic payload; those --for-tool left out are skipped by their matcher.
func (e *Engine) recordTrial(start time.Time, t Trial, cwd, tool string) {
	var skips []dispatch.Skip
	for _, h := range t.Unmatched {
		info := dispatch.HookInfo{Source: "shell", Name: h.Command, Where: h.Where()}
		skips = append(skips, dispatch.Skip{Hook: info, Where: info.Where, Reason: dispatch.SkipMatcher, Detail: shellhook.MatcherMismatch(h.Matcher, tool, true)})
	}
	origin := e.opts.Origin
	origin.Via = "test"
	e.record(origin, start, t.Event, t.Kwargs, cwd, dispatch.Report{Combined: t.Combined, Results: t.Results, Skips: skips})
}

// GatewayFiring is one `gateway emit`, for the run journal.
type GatewayFiring struct {
	Paths   config.Paths
	Start   time.Time
	Event   string
	Context protocol.Object
	Cwd     string
	Results []gatewayhooks.Result
}

// RecordGateway records a `gateway emit`: its handlers, each ok or failed,
// and their results as the answer, unless the config turns the journal off.
// It writes before returning (a one-shot command), so it is called after the
// results were printed; with traces exported, the firing's spans go out
// like exec's. opts gives the process (Warn, Now, Getenv).
func RecordGateway(opts Options, f GatewayFiring) {
	opts.defaults()
	cfg, err := config.Load(f.Paths.Config)
	if err != nil {
		cfg = nil // gateway hooks need no config: the journal is on
	}
	w := openJournal(opts, f.Paths.Home, cfg, true)
	if w == nil {
		return
	}
	report := dispatch.Report{Combined: protocol.Combined{Event: f.Event, Answer: protocol.Object{
		{Key: "results", Value: protocol.Raw(gatewayhooks.Values(f.Results))},
	}}}
	for _, r := range f.Results {
		info := dispatch.HookInfo{Source: "gateway", Name: r.Handler.Name, Where: r.Handler.Dir}
		res := dispatch.Result{HookInfo: info, Status: dispatch.StatusOK, Duration: r.Duration}
		if r.Err != nil {
			res.Status, res.Warnings = dispatch.StatusError, []dispatch.Warning{dispatch.Warn(r.Err.Error())}
		}
		report.Results = append(report.Results, res)
	}
	w.Add(journal.Firing{Time: opts.Now(), Via: "gateway", Event: f.Event, Kwargs: protocol.Kwargs(f.Context), Cwd: f.Cwd, Report: report, Duration: time.Since(f.Start)})
	w.Close(journalGrace)
}
