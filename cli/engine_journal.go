package cli

import (
	"time"

	"github.com/noora-hooks/noora-hooks/config"
	"github.com/noora-hooks/noora-hooks/consent"
	"github.com/noora-hooks/noora-hooks/gatewayhooks"
	"github.com/noora-hooks/noora-hooks/journal"
	"github.com/noora-hooks/noora-hooks/protocol"
	"github.com/noora-hooks/noora-hooks/runner"
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

// openJournal is the engine's run journal: nil (off) with `journal: false`.
func (e *Engine) openJournal() {
	if e.Config != nil && e.Config.JournalOff {
		return
	}
	env := e.env
	e.journal = journal.NewWriter(journal.PathIn(e.Paths.Home), journal.Options{
		Warn: func(msg string) { env.Warnf("%s", msg) },
	})
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
