package cli

import (
	"time"

	"github.com/noora-hooks/noora-hooks/consent"
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
		Time: start, Via: via, Dialect: e.Origin.Dialect, AgentEvent: e.Origin.AgentEvent,
		SafeMode: e.SafeMode, Event: event.Name, Kwargs: kw, Cwd: cwd,
		Report: report, Duration: time.Since(start), Drift: e.drifted,
	})
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
