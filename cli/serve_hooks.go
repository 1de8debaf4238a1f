package cli

import (
	"encoding/json"

	"github.com/noora-hooks/noora-hooks/consent"
	"github.com/noora-hooks/noora-hooks/protocol"
)

// hooksListing is the JSON document of serve's GET /v1/hooks: the configured
// shell hooks with their consent state, in config order, as `list --json`
// reports them (SPEC §6):
//
//	{"safe_mode": false, "accept_hooks": false, "shell_hooks": [{"event": ...,
//	 "matcher": "..." or null, "command": ..., "timeout": <seconds>,
//	 "fail_closed": ..., "approved": ..., "approved_at": "..." or null, "drift": ...}]}
func hooksListing(e *Engine) []byte {
	allow := e.Allowlist()
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
			if mt, err := consent.ScriptMtime(h.Command); err == nil {
				drift = consent.Drift(a, mt)
			}
		}
		entry, _ := protocol.Object{
			{Key: "event", Value: protocol.String(h.Event)},
			{Key: "matcher", Value: matcher},
			{Key: "command", Value: protocol.String(h.Command)},
			{Key: "timeout", Value: protocol.Raw(int64(h.Timeout.Seconds()))},
			{Key: "fail_closed", Value: protocol.Raw(h.FailClosed)},
			{Key: "approved", Value: protocol.Raw(approved)},
			{Key: "approved_at", Value: approvedAt},
			{Key: "drift", Value: protocol.Raw(drift)},
		}.MarshalJSON()
		hooks = append(hooks, entry)
	}
	b, _ := protocol.Object{
		{Key: "safe_mode", Value: protocol.Raw(e.SafeMode)},
		{Key: "accept_hooks", Value: protocol.Raw(e.Accept)},
		{Key: "shell_hooks", Value: protocol.Raw(hooks)},
	}.MarshalJSON()
	return append(b, '\n')
}
