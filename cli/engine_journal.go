package cli

import (
	"path/filepath"
	"time"

	"github.com/noora-hooks/noora-hooks/config"
	"github.com/noora-hooks/noora-hooks/consent"
	"github.com/noora-hooks/noora-hooks/gatewayhooks"
	"github.com/noora-hooks/noora-hooks/journal"
	"github.com/noora-hooks/noora-hooks/outbound"
	"github.com/noora-hooks/noora-hooks/protocol"
	"github.com/noora-hooks/noora-hooks/runner"
	"github.com/noora-hooks/noora-hooks/traces"
)

// journalGrace is how long a command that fired an event waits, after its
// answer is out, for the run journal to be written before it exits.
const journalGrace = 2 * time.Second

// Origin says how a firing reached the engine, for the run journal.
type Origin struct {
	Via        string // exec (the default), bridge, serve, test, gateway
	Dialect    string // claude, cursor: the payload was that tool's
	AgentEvent string // that tool's event name
}

// openJournal is the engine's run journal: nil (off) with `journal: false`,
// unless traces are exported (OTEL_EXPORTER_OTLP_ENDPOINT), which it feeds.
func (e *Engine) openJournal() {
	off := e.Config != nil && e.Config.JournalOff
	exporter := traces.FromEnv(e.env.Getenv)
	if off && exporter == nil {
		return
	}
	env := e.env
	opts := journal.Options{Warn: func(msg string) { env.Warnf("%s", msg) }, Discard: off}
	if exporter != nil {
		opts.Export = e.exportSpans(exporter)
	}
	e.journal = journal.NewWriter(journal.PathIn(e.Paths.Home), opts)
}

// exportSpans spools the spans of each firing for the collector, nested
// under the caller's TRACEPARENT when it has one, and makes sure a sender
// runs: serve's, or the background sender of one-shot commands.
func (e *Engine) exportSpans(x *traces.Exporter) func(journal.Record) {
	var parent *traces.Parent
	if p, ok := traces.ParseTraceparent(e.env.Getenv("TRACEPARENT")); ok {
		parent = &p
	}
	home := e.Paths.Home
	if abs, err := filepath.Abs(home); err == nil {
		home = abs // the sender runs elsewhere
	}
	spool := outbound.Spool{Dir: outbound.DirOf(home), Limit: e.Config.SpoolLimit()}
	env, warned := e.env, false
	return func(rec journal.Record) {
		d, err := x.Delivery(rec, parent, Version)
		if err == nil {
			err = spool.Add(d)
		}
		if err == nil {
			err = outbound.EnsureSender(home, spool, env.Environ())
		}
		if err != nil && !warned {
			warned = true
			env.Warnf("traces for %s: %v; spans of this run are not exported", x.URL, err)
		}
	}
}

// record queues one firing for the run journal; it never waits for the disk.
func (e *Engine) record(start time.Time, event protocol.Event, kw protocol.Kwargs, cwd string, report runner.Report) {
	if e.journal == nil {
		return
	}
	via := e.Origin.Via
	if via == "" {
		via = "exec"
	}
	e.journal.Add(journal.Firing{
		Time: e.env.Now(), Via: via, Dialect: e.Origin.Dialect, AgentEvent: e.Origin.AgentEvent,
		SafeMode: e.SafeMode, Event: event.Name, Kwargs: kw, Cwd: cwd,
		Report: report, Duration: time.Since(start), Drift: e.drifted,
		Unregistered: func() []runner.Skip { return e.unregistered(event.Name) },
	})
}

// unregistered lists the shell hooks of event that safe mode kept from
// running. Safe mode reads no config (SPEC §1), so the journal's goroutine
// reads it here, after the answer, and says nothing when it cannot.
func (e *Engine) unregistered(event string) []runner.Skip {
	cfg, err := config.Load(e.Paths.Config)
	if err != nil {
		return nil
	}
	var out []runner.Skip
	for _, h := range cfg.ShellHooks {
		if h.Event == event {
			info := runner.HookInfo{Source: "shell", Name: h.Command, Where: h.Where()}
			out = append(out, runner.Skip{Hook: info, Where: info.Where, Reason: runner.SkipSafeMode, Detail: "NOORA_SAFE_MODE is on"})
		}
	}
	return out
}

// drifted reports whether the approved script of a shell hook changed since
// its approval (SPEC §5). The journal's goroutine asks, not the answer's.
func (e *Engine) drifted(event, command string) bool {
	a, ok := e.Allowlist().Find(event, command)
	if !ok {
		return false
	}
	mt, err := consent.ScriptMtime(command)
	return err == nil && consent.Drift(a, mt)
}

// recordTest records a `test` run: its hooks ran approved or not, on a
// synthetic payload; those --for-tool left out are skipped by their matcher.
func (e *Engine) recordTest(start time.Time, event protocol.Event, kw protocol.Kwargs, cwd, tool string, results []runner.Result, unmatched []config.ShellHook, combined protocol.Combined) {
	var skips []runner.Skip
	for _, h := range unmatched {
		info := runner.HookInfo{Source: "shell", Name: h.Command, Where: h.Where()}
		skips = append(skips, runner.Skip{Hook: info, Where: info.Where, Reason: runner.SkipMatcher, Detail: runner.MatcherMismatch(h.Matcher, tool, true)})
	}
	e.Origin.Via = "test"
	e.record(start, event, kw, cwd, runner.Report{Combined: combined, Results: results, Skips: skips})
}

// recordGateway records a `gateway emit`: its handlers, each ok or failed,
// and their results as the answer. It writes before returning (a one-shot
// command), after the results were printed.
func recordGateway(home, configPath string, env *Env, start time.Time, event string, kw protocol.Object, cwd string, results []gatewayhooks.Result) {
	if cfg, err := config.Load(configPath); err == nil && cfg.JournalOff {
		return
	}
	report := runner.Report{Combined: protocol.Combined{Event: event, Answer: protocol.Object{
		{Key: "results", Value: protocol.Raw(gatewayhooks.Values(results))},
	}}}
	for _, r := range results {
		res := runner.Result{HookInfo: runner.HookInfo{Source: "gateway", Name: r.Handler.Name, Where: r.Handler.Dir}, Status: runner.StatusOK, Duration: r.Duration}
		if r.Err != nil {
			res.Status, res.Warnings = runner.StatusError, []string{r.Err.Error()}
		}
		report.Results = append(report.Results, res)
	}
	w := journal.NewWriter(journal.PathIn(home), journal.Options{Warn: func(msg string) { env.Warnf("%s", msg) }})
	w.Add(journal.Firing{Time: env.Now(), Via: "gateway", Event: event, Kwargs: protocol.Kwargs(kw), Cwd: cwd, Report: report, Duration: time.Since(start)})
	w.Close(journalGrace)
}

// What hook tests (package hooktest, the noora-hooks-check program) use of
// the command line's own reading of payloads.

// ReadKwargs reads an event's kwargs from file, as exec does.
func ReadKwargs(file string) (protocol.Kwargs, error) { return readKwargs(file, nil) }

// ReadPayload reads another agent's payload from file, as exec --dialect does.
func ReadPayload(file string) ([]byte, string, error) { return readPayload(file, nil) }

// UnknownEvent is the error for an event that is not in the catalogue.
func UnknownEvent(event string) error { return unknownEvent(event) }

// NoJournal turns the engine's run journal off: a hook test is not a firing
// of the agent's.
func (e *Engine) NoJournal() { e.journal = nil }
