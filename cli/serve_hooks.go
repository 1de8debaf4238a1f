package cli

import (
	"encoding/json"
	"os"

	"github.com/noora-hooks/noora-hooks/config"
	"github.com/noora-hooks/noora-hooks/consent"
	"github.com/noora-hooks/noora-hooks/observe"
	"github.com/noora-hooks/noora-hooks/protocol"
	"github.com/noora-hooks/noora-hooks/runner"
)

// hooksListing is the JSON document of serve's GET /v1/hooks: the configured
// shell hooks with their consent state, in config order, as `list --json`
// reports them (SPEC §6), with the queue of each hook that got a streaming
// event, and every queue of obs (docs/cli.md):
//
//	{"config": ..., "safe_mode": false, "accept_hooks": false, "shell_hooks": [{"event": ...,
//	 "matcher": "..." or null, "command": ..., "timeout": <seconds>,
//	 "fail_closed": ..., "stream": ..., "approved": ..., "approved_at": "..." or null, "drift": ...,
//	 "queue": {"pending": n, "running": 0|1, "delivered": n, "dropped": n} or null}],
//	 "observer_queues": [{"source": ..., "hook": ..., "events": [...], "pending": n, "running": 0|1, "delivered": n, "dropped": n}]}
func hooksListing(e *Engine, obs *observe.Observers) []byte {
	var stats []runner.QueueStats
	if obs != nil {
		stats = obs.Stats()
	}
	queues := queuesByKey(stats)
	allow := e.Allowlist()
	cwd, _ := os.Getwd() // drift as seen from serve's own directory
	hooks := make([]json.RawMessage, 0, len(e.Config.ShellHooks))
	for _, h := range e.Config.ShellHooks {
		matcher := json.RawMessage("null")
		if h.Matcher != nil {
			matcher = protocol.String(h.Matcher.Source)
		}
		a, approved := allow.Find(h.Event, h.Command)
		approvedAt := json.RawMessage("null")
		drift := false
		if approved {
			if a.ApprovedAt != "" {
				approvedAt = protocol.String(a.ApprovedAt)
			}
			drift = a.Drift(consent.Bind(h.Command, cwd, e.env.Environ())) != ""
		}
		entry, _ := protocol.Object{
			{Key: "event", Value: protocol.String(h.Event)},
			{Key: "matcher", Value: matcher},
			{Key: "command", Value: protocol.String(h.Command)},
			{Key: "timeout", Value: protocol.Raw(int64(h.Timeout.Seconds()))},
			{Key: "fail_closed", Value: protocol.Raw(h.FailClosed)},
			{Key: "stream", Value: protocol.Raw(h.Stream)},
			{Key: "approved", Value: protocol.Raw(approved)},
			{Key: "approved_at", Value: approvedAt},
			{Key: "drift", Value: protocol.Raw(drift)},
			{Key: "queue", Value: protocol.Raw(queues[queueKeyOf(h)])},
		}.MarshalJSON()
		hooks = append(hooks, entry)
	}
	b, _ := protocol.Object{
		{Key: "config", Value: protocol.String(e.Paths.Config)},
		{Key: "safe_mode", Value: protocol.Raw(e.SafeMode)},
		{Key: "accept_hooks", Value: protocol.Raw(e.Accept)},
		{Key: "shell_hooks", Value: protocol.Raw(hooks)},
		{Key: "observer_queues", Value: protocol.Raw(observerQueuesOf(stats))},
	}.MarshalJSON()
	return append(b, '\n')
}

// queueCounts is one hook's queue in the listings: what waits, what its hook
// got, what it dropped (the oldest, when the queue was full).
type queueCounts struct {
	Pending   int    `json:"pending"`
	Running   int    `json:"running"`
	Delivered uint64 `json:"delivered"`
	Dropped   uint64 `json:"dropped"`
}

// observerQueue is one queue of `observer_queues`.
type observerQueue struct {
	Source string   `json:"source"`
	Hook   string   `json:"hook"`
	Events []string `json:"events"`
	queueCounts
}

func queuesByKey(stats []runner.QueueStats) map[string]*queueCounts {
	out := make(map[string]*queueCounts, len(stats))
	for _, q := range stats {
		out[q.Key] = &queueCounts{Pending: q.Pending, Running: q.Running, Delivered: q.Delivered, Dropped: q.Dropped}
	}
	return out
}

// queueKeyOf is the queue a shell hook entry's events go to: one per entry,
// or one per command for the entries of a stream hook.
func queueKeyOf(h config.ShellHook) string {
	if h.Stream {
		return runner.StreamQueueKey(h.Command)
	}
	return runner.Key(h.Event, runner.HookInfo{Source: "shell", Name: h.Command})
}

func observerQueuesOf(stats []runner.QueueStats) []observerQueue {
	out := make([]observerQueue, 0, len(stats))
	for _, q := range stats {
		out = append(out, observerQueue{Source: q.Source, Hook: q.Hook, Events: q.Events, queueCounts: queueCounts{q.Pending, q.Running, q.Delivered, q.Dropped}})
	}
	return out
}
