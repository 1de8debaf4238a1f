package engine

import (
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"sort"
	"time"

	"github.com/google/shlex"

	"github.com/noora-hooks/noora-hooks/internal/config"
	"github.com/noora-hooks/noora-hooks/internal/consent"
	"github.com/noora-hooks/noora-hooks/internal/dispatch"
)

// HookState is what consent knows about one configured shell hook.
type HookState struct {
	Hook     config.ShellHook
	Approved bool
	Approval consent.Approval
	// Script is the token of the command that names its script (SPEC §5).
	Script string
	// Binding is the file the script resolves to here, and its content.
	Binding consent.Binding
	// Mtime is the script's modification time; zero when it cannot be found.
	Mtime time.Time
	// Drift: the approval does not cover what would run here (another
	// file, other content); DriftWhy says how.
	Drift    bool
	DriftWhy string
}

// StateOf looks the hook up in the allowlist and checks what its command
// would run from the current directory for drift (SPEC §5).
func (e *Engine) StateOf(h config.ShellHook) HookState {
	s := HookState{Hook: h, Script: consent.Script(h.Command, shlex.Split)}
	s.Approval, s.Approved = e.Allowlist().Find(h.Event, h.Command)
	cwd, _ := os.Getwd()
	s.Binding = bind(h, cwd, e.opts.Environ())
	s.Mtime = s.Binding.Mtime
	if s.Approved {
		s.DriftWhy = s.Approval.Drift(s.Binding)
		s.Drift = s.DriftWhy != ""
	}
	return s
}

// States is the state of every configured shell hook, sorted by event and,
// within an event, in config order (the order they run in).
func (e *Engine) States() []HookState {
	states := make([]HookState, len(e.Config.ShellHooks))
	for i, h := range e.Config.ShellHooks {
		states[i] = e.StateOf(h)
	}
	sort.SliceStable(states, func(i, j int) bool { return states[i].Hook.Event < states[j].Hook.Event })
	return states
}

// Listing is the document that `list --json` and serve's GET /v1/hooks share
// (docs/cli.md): the configured shell hooks with their consent state and,
// from a running serve, the queue of each hook that got a streaming event.
type Listing struct {
	Config       string            `json:"config"`
	ConfigExists bool              `json:"config_exists"`
	SafeMode     bool              `json:"safe_mode"`
	AutoAccept   bool              `json:"auto_accept"`
	ShellHooks   []ListedShellHook `json:"shell_hooks"`
	// ObserverQueues are serve's queues, plugins' included; nil (null) when
	// no serve answered.
	ObserverQueues []ObserverQueue `json:"observer_queues"`
}

// ListedShellHook is one shell hook in the listing.
type ListedShellHook struct {
	Event      string  `json:"event"`
	Matcher    *string `json:"matcher"`
	Command    string  `json:"command"`
	Timeout    int     `json:"timeout"`
	FailClosed bool    `json:"fail_closed"`
	Stream     bool    `json:"stream"`
	Approved   bool    `json:"approved"`
	ApprovedAt *string `json:"approved_at"`
	Script     string  `json:"script"`
	// ScriptMtime is the script's modification time now; null when it
	// cannot be found.
	ScriptMtime           *string `json:"script_mtime"`
	ScriptMtimeAtApproval *string `json:"script_mtime_at_approval"`
	Drift                 bool    `json:"drift"`
	// DriftReason says how the approval no longer covers what would run;
	// null without drift. ScriptPath is the file the script resolves to
	// from here; null when there is none.
	DriftReason *string `json:"drift_reason"`
	ScriptPath  *string `json:"script_path"`
	Line        int     `json:"line"`
	// Queue is the hook's queue of streaming events in a running serve;
	// null without one (or before its first such event).
	Queue *QueueCounts `json:"queue"`
}

// QueueCounts is one hook's queue: what waits, what its hook got, what it
// dropped (the oldest, when the queue was full).
type QueueCounts struct {
	Pending   int    `json:"pending"`
	Running   int    `json:"running"`
	Delivered uint64 `json:"delivered"`
	Dropped   uint64 `json:"dropped"`
}

// ObserverQueue is one queue of `observer_queues`.
type ObserverQueue struct {
	Source string   `json:"source"`
	Hook   string   `json:"hook"`
	Events []string `json:"events"`
	QueueCounts
}

// Listing lists the configured shell hooks; with queues (a serve's), each
// hook gets its queue and the listing every queue.
func (e *Engine) Listing(queues []dispatch.QueueStats) Listing {
	out := Listing{Config: e.Paths.Config, ConfigExists: e.Config.Exists, SafeMode: e.SafeMode, AutoAccept: e.Accept}
	states := e.States()
	out.ShellHooks = make([]ListedShellHook, len(states))
	for i, s := range states {
		out.ShellHooks[i] = listedOf(s)
		out.ShellHooks[i].Queue = queueOf(s.Hook, queues)
	}
	if queues != nil {
		out.ObserverQueues = make([]ObserverQueue, len(queues))
		for i, q := range queues {
			out.ObserverQueues[i] = ObserverQueue{Source: q.Source, Hook: q.Hook, Events: q.Events, QueueCounts: countsOf(q)}
		}
	}
	return out
}

// JSON is the listing as GET /v1/hooks sends it: one line.
func (l Listing) JSON() []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // commands hold <, > and &
	_ = enc.Encode(l)
	return b.Bytes()
}

// queueOf finds the queue of a shell hook entry among a serve's queues: the
// entry's own (its event), or the one its stream command shares across events.
func queueOf(h config.ShellHook, queues []dispatch.QueueStats) *QueueCounts {
	for _, q := range queues {
		if q.Source == "shell" && q.Hook == h.Command && (h.Stream || slices.Contains(q.Events, h.Event)) {
			c := countsOf(q)
			return &c
		}
	}
	return nil
}

func countsOf(q dispatch.QueueStats) QueueCounts {
	return QueueCounts{Pending: q.Pending, Running: q.Running, Delivered: q.Delivered, Dropped: q.Dropped}
}

func listedOf(s HookState) ListedShellHook {
	h := s.Hook
	out := ListedShellHook{
		Event: h.Event, Command: h.Command, Timeout: int(h.Timeout.Seconds()), FailClosed: h.FailClosed, Stream: h.Stream,
		Approved: s.Approved, Script: s.Script, ScriptMtime: jsonTime(s.Mtime), Drift: s.Drift, Line: h.Line,
	}
	if h.Matcher != nil {
		out.Matcher = &h.Matcher.Source
	}
	if s.Approved {
		out.ApprovedAt = JSONStored(s.Approval.ApprovedAt)
		out.ScriptMtimeAtApproval = JSONStored(s.Approval.ScriptMtime)
	}
	if s.Drift {
		out.DriftReason = &s.DriftWhy
	}
	if s.Binding.Path != "" {
		out.ScriptPath = &s.Binding.Path
	}
	return out
}

// jsonTime is a time in a report: RFC 3339 in UTC, or null.
func jsonTime(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := t.UTC().Format(time.RFC3339Nano)
	return &s
}

// JSONStored passes a stored time (RFC 3339) through, and gives null for an
// absent or hand-written value that does not parse.
func JSONStored(s string) *string {
	t, ok := StoredTime(s)
	if !ok {
		return nil
	}
	return jsonTime(t)
}

// StoredTime reads a time kept in the allowlist (RFC 3339); ok is false for
// an absent or hand-written value that does not parse.
func StoredTime(s string) (time.Time, bool) {
	if s == "" {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil
}
