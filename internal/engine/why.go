package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/noora-hooks/noora-hooks/internal/compat"
	"github.com/noora-hooks/noora-hooks/internal/config"
	"github.com/noora-hooks/noora-hooks/internal/consent"
	"github.com/noora-hooks/noora-hooks/internal/dispatch"
	"github.com/noora-hooks/noora-hooks/internal/gatewayhooks"
	"github.com/noora-hooks/noora-hooks/internal/plugins"
	"github.com/noora-hooks/noora-hooks/internal/shellhook"
	"github.com/noora-hooks/noora-hooks/protocol"
)

// WhyHook is one hook in an Explanation.
type WhyHook struct {
	Source   string `json:"source"`
	Hook     string `json:"hook"`
	Where    string `json:"where,omitempty"`
	WouldRun bool   `json:"would_run"`
	// Reason and Detail say why it would not run (the journal's reasons).
	Reason  string `json:"reason,omitempty"`
	Detail  string `json:"detail,omitempty"`
	Matcher string `json:"matcher,omitempty"`
	// Approval says which approval lets a shell hook run: "allowlist",
	// "accept" (an accept channel would approve and record it), or "".
	Approval   string          `json:"approval,omitempty"`
	ApprovedAt string          `json:"approved_at,omitempty"`
	Drift      bool            `json:"drift,omitempty"`
	Dialect    string          `json:"dialect,omitempty"`
	Stdin      json.RawMessage `json:"stdin,omitempty"` // what a dialect hook would read
	Note       string          `json:"note,omitempty"`
}

// Explanation is what `why` reports: for one payload, every configured hook
// of every kind, whether it would run and, if not, exactly why.
type Explanation struct {
	Event      string          `json:"event"`
	Dialect    string          `json:"dialect,omitempty"`
	AgentEvent string          `json:"agent_event,omitempty"`
	Tool       string          `json:"tool,omitempty"`
	SafeMode   bool            `json:"safe_mode"`
	Config     string          `json:"config"`
	Payload    json.RawMessage `json:"payload"`
	Hooks      []WhyHook       `json:"hooks"`
	// Other is a sentence about hooks that cannot apply to this event.
	Other []string `json:"other"`
}

// Why explains, without executing anything (no hook runs, no plugin starts,
// no approval is recorded), what firing event with kw in cwd would do. The
// Origin says the agent's dialect and event when the payload was its.
func (e *Engine) Why(origin Origin, event protocol.Event, kw protocol.Kwargs, cwd string) Explanation {
	rep := Explanation{Hooks: []WhyHook{}, Other: []string{}, Dialect: origin.Dialect, AgentEvent: origin.AgentEvent}
	rep.Event, rep.SafeMode, rep.Config = event.Name, e.SafeMode, e.Paths.Config
	rep.Tool, _ = protocol.ToolName(kw)
	call := e.Call(event, kw, cwd)
	rep.Payload, _ = protocol.Payload(event.Name, call.Kwargs, cwd).MarshalJSON()

	rep.Hooks = append(rep.Hooks, e.whyPlugins()...)
	rep.Hooks = append(rep.Hooks, e.whyShell(call)...)
	rep.Hooks = append(rep.Hooks, e.whyOutbound(call)...)
	if n := otherEventHooks(e.Config, event.Name); n > 0 {
		rep.Other = append(rep.Other, fmt.Sprintf("%d shell hooks are configured for other events", n))
	}
	if gw, _ := gatewayhooks.Discover(e.Paths.Home); len(gw) > 0 {
		rep.Other = append(rep.Other, fmt.Sprintf("%d gateway hooks answer gateway events (gateway emit), never %s", len(gw), event.Name))
	}
	if rep.SafeMode {
		// Safe mode decides first: nothing is registered at all (SPEC §1).
		for i := range rep.Hooks {
			h := &rep.Hooks[i]
			detail := "NOORA_SAFE_MODE is on: no shell hook, plugin or outbound webhook is registered"
			if h.Reason != "" {
				detail += fmt.Sprintf("; besides, %s: %s", h.Reason, h.Detail)
			}
			h.WouldRun, h.Reason, h.Detail, h.Note = false, string(dispatch.SkipSafeMode), detail, ""
		}
	}
	return rep
}

// whyConsent is consent (consent.go) that only looks: it records nothing,
// and notes in approval which channel would let each hook run.
func (e *Engine) whyConsent(approval map[string]string) shellhook.Consent {
	return func(h config.ShellHook, call dispatch.Call) (shellhook.Verdict, string) {
		b := consent.Bind(h.Command, call.Cwd, call.Env)
		if b.Path != "" {
			if p := config.CheckWritable("hook script", b.Path); p != nil && p.Refused {
				return shellhook.Close, p.Error()
			}
		}
		drift := ""
		if a, ok := e.Allowlist().Find(h.Event, h.Command); ok {
			if drift = a.Drift(b); drift == "" {
				approval[h.Where()] = "allowlist"
				return shellhook.Allow, ""
			}
		}
		if e.Accept {
			approval[h.Where()] = "accept"
			return shellhook.Allow, ""
		}
		if drift != "" {
			return shellhook.Close, fmt.Sprintf("its approval does not cover what would run: %s; review it, then run \"noora-hooks approve\"", drift)
		}
		return shellhook.Skip, "not in the allowlist"
	}
}

// whyShell explains the shell hooks of the event with the dispatcher's own
// selection, under a consent that only looks.
func (e *Engine) whyShell(call dispatch.Call) []WhyHook {
	byWhere := map[string]config.ShellHook{}
	for _, h := range e.Config.ShellHooks {
		byWhere[h.Where()] = h
	}
	approval := map[string]string{}
	src := &shellhook.ShellSource{Entries: e.Config.ShellHooks, Dialects: compat.Dialects(), Consent: e.whyConsent(approval)}
	hooks, skips := src.Select(context.Background(), call)
	var out []WhyHook
	for _, hk := range hooks {
		var h config.ShellHook
		switch x := hk.(type) {
		case *shellhook.ShellHook:
			h = x.Config
		case *shellhook.URLHook:
			h = x.Config
		case *shellhook.StreamHook:
			if x.CloseOnly {
				continue
			}
			h = x.Config
		default:
			continue // refused: its Skip says why
		}
		w := e.shellWhy(h, call)
		w.WouldRun = true
		w.Approval = approval[h.Where()]
		if w.Approval == "accept" {
			w.Note = "not in the allowlist yet: an accept channel (--accept-hooks, NOORA_ACCEPT_HOOKS, hooks_auto_accept) would approve and record it"
		}
		out = append(out, w)
	}
	for _, s := range skips {
		h := byWhere[s.Where]
		w := e.shellWhy(h, call)
		w.Reason, w.Detail = string(s.Reason), s.Detail
		if s.Reason == dispatch.SkipNotApproved && s.Detail == shellhook.NotApproved {
			w.Detail = fmt.Sprintf("(%s, %q) is not in %s; approve it with \"noora-hooks approve\", or run with --accept-hooks, NOORA_ACCEPT_HOOKS=1 or hooks_auto_accept: true", h.Event, h.Command, e.Store.Path)
		}
		out = append(out, w)
	}
	sortWhy(out)
	return out
}

func (e *Engine) shellWhy(h config.ShellHook, call dispatch.Call) WhyHook {
	w := WhyHook{Source: "shell", Hook: h.Command, Where: h.Where(), Dialect: h.Dialect}
	if h.URL != "" {
		w.Source, w.Hook = "url", h.URL
	}
	if h.Matcher != nil {
		w.Matcher = h.Matcher.Source
	}
	s := e.StateOf(h)
	if s.Approved {
		w.ApprovedAt, w.Drift = s.Approval.ApprovedAt, s.Drift
	}
	if h.Dialect != "" {
		if d := compat.Dialects()[h.Dialect]; d != nil {
			w.Stdin = json.RawMessage(strings.TrimSpace(string(d.Stdin(h, call))))
		}
	}
	return w
}

// sortWhy keeps shell hooks in config order.
func sortWhy(hooks []WhyHook) {
	for i := 1; i < len(hooks); i++ {
		for j := i; j > 0 && lineOfWhere(hooks[j].Where) < lineOfWhere(hooks[j-1].Where); j-- {
			hooks[j], hooks[j-1] = hooks[j-1], hooks[j]
		}
	}
}

func lineOfWhere(where string) int {
	var n int
	if i := strings.LastIndexByte(where, ':'); i >= 0 {
		fmt.Sscanf(where[i+1:], "%d", &n)
	}
	return n
}

// whyPlugins lists the plugins without starting them: which callbacks a
// plugin registers is only known once its code runs.
func (e *Engine) whyPlugins() []WhyHook {
	ps, problems := plugins.Discover(e.Paths.Home)
	var out []WhyHook
	for _, p := range ps {
		out = append(out, WhyHook{Source: "plugin", Hook: p.Name, Where: p.Dir, WouldRun: true,
			Note: "plugins are trusted and have no matcher: every callback it registers for this event runs; which ones it registers is known only once it starts (noora-hooks plugins list starts it)"})
	}
	for _, pr := range problems {
		out = append(out, WhyHook{Source: "plugin", Hook: pr.Name, Where: pr.Dir, Reason: "invalid", Detail: pr.Msg})
	}
	return out
}

// whyOutbound explains the outbound targets: they only observe.
func (e *Engine) whyOutbound(call dispatch.Call) []WhyHook {
	tool, hasTool := protocol.ToolName(call.Kwargs)
	var out []WhyHook
	for _, t := range e.Config.Outbound {
		w := WhyHook{Source: "outbound", Hook: t.Name, Where: t.URL}
		if t.Matcher != nil {
			w.Matcher = t.Matcher.Source
		}
		switch {
		case t.Wants(call.Event, tool, hasTool):
			w.WouldRun, w.Note = true, "spooled for delivery; webhooks never change the answer"
		case !contains(t.Events, call.Event.Name):
			w.Reason, w.Detail = "event", fmt.Sprintf("its events are %s", strings.Join(t.Events, ", "))
		default:
			w.Reason, w.Detail = string(dispatch.SkipMatcher), shellhook.MatcherMismatch(t.Matcher, tool, hasTool)
		}
		out = append(out, w)
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func otherEventHooks(cfg *config.Config, event string) int {
	n := 0
	for _, h := range cfg.ShellHooks {
		if h.Event != event {
			n++
		}
	}
	return n
}
