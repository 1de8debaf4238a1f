package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/noora-hooks/noora-hooks/compat"
	"github.com/noora-hooks/noora-hooks/config"
	"github.com/noora-hooks/noora-hooks/gatewayhooks"
	"github.com/noora-hooks/noora-hooks/plugins"
	"github.com/noora-hooks/noora-hooks/protocol"
	"github.com/noora-hooks/noora-hooks/runner"
)

// WhyCmd is `noora-hooks why <event>`: a dry run that explains, hook by
// hook, what exec would do with a payload, and executes nothing.
type WhyCmd struct {
	Event       string `arg:"" optional:"" help:"The event, e.g. pre_tool_call. Not with --dialect: the payload names it." predictor:"event"`
	PayloadFile string `help:"Read the kwargs (or, with --dialect, that tool's payload) from FILE instead of stdin." placeholder:"FILE" type:"path"`
	Dialect     string `help:"Read the payload Claude Code (claude) or Cursor (cursor) hands its hook, as exec --dialect does." placeholder:"TOOL"`
	JSON        bool   `help:"Print the explanation as JSON (shape: docs/journal.md)." name:"json"`
}

// Help is the long help of `why`.
func (WhyCmd) Help() string {
	return `For the payload given (on stdin, or --payload-file; none when stdin is a terminal), every configured hook of every kind is explained: would it run, and if not, exactly why (its matcher and the tool, its approval, its dialect's rules, safe mode); which config line and which approval decided it; what the payload looks like to a dialect hook. Nothing is executed: no hook runs, no plugin starts, no approval is recorded.`
}

// whyHook is one hook in the explanation.
type whyHook struct {
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

type whyReport struct {
	Event      string          `json:"event"`
	Dialect    string          `json:"dialect,omitempty"`
	AgentEvent string          `json:"agent_event,omitempty"`
	Tool       string          `json:"tool,omitempty"`
	SafeMode   bool            `json:"safe_mode"`
	Config     string          `json:"config"`
	Payload    json.RawMessage `json:"payload"`
	Hooks      []whyHook       `json:"hooks"`
	// Other is a sentence about hooks that cannot apply to this event.
	Other []string `json:"other"`
}

// Run explains the event.
func (c *WhyCmd) Run(g *Globals, env *Env) error {
	rep := whyReport{Hooks: []whyHook{}, Other: []string{}}
	event, kw, err := c.read(env, &rep)
	if err != nil {
		return err
	}
	eng, err := loadManaged(g, env)
	if err != nil {
		return err
	}
	cwd, err := Cwd()
	if err != nil {
		return err
	}
	rep.Event, rep.SafeMode, rep.Config = event.Name, eng.SafeMode, eng.Paths.Config
	rep.Tool, _ = protocol.ToolName(kw)
	call := runner.Call{Event: event, Kwargs: protocol.WithTelemetry(kw), Cwd: cwd, Home: eng.Paths.Home, Env: env.Environ()}
	rep.Payload, _ = protocol.Payload(event.Name, call.Kwargs, cwd).MarshalJSON()

	rep.Hooks = append(rep.Hooks, whyPlugins(eng)...)
	rep.Hooks = append(rep.Hooks, whyShell(eng, call)...)
	rep.Hooks = append(rep.Hooks, whyOutbound(eng, call)...)
	if n := otherEventHooks(eng.Config, event.Name); n > 0 {
		rep.Other = append(rep.Other, fmt.Sprintf("%d shell hooks are configured for other events", n))
	}
	if gw, _ := gatewayhooks.Discover(eng.Paths.Home); len(gw) > 0 {
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
			h.WouldRun, h.Reason, h.Detail, h.Note = false, string(runner.SkipSafeMode), detail, ""
		}
	}
	if c.JSON {
		return writeJSON(env.Stdout, rep)
	}
	printWhy(env.Stdout, rep)
	return nil
}

// read takes the event and kwargs from the arguments and the payload.
func (c *WhyCmd) read(env *Env, rep *whyReport) (protocol.Event, protocol.Kwargs, error) {
	stdin := env.Stdin
	if f, ok := stdin.(*os.File); ok && isTerminal(f) && c.PayloadFile == "" {
		stdin = strings.NewReader("") // nobody is going to type a payload
	}
	if c.Dialect != "" {
		if c.Dialect != compat.Claude && c.Dialect != compat.Cursor {
			return protocol.Event{}, nil, usageError("--dialect must be %s or %s, got %q", compat.Claude, compat.Cursor, c.Dialect)
		}
		if c.Event != "" {
			return protocol.Event{}, nil, usageError("why --dialect %s takes no event: it comes from the payload's hook_event_name (got %q)", c.Dialect, c.Event)
		}
		data, name, err := readPayload(c.PayloadFile, stdin)
		if err != nil {
			return protocol.Event{}, nil, err
		}
		in, err := compat.Decode(c.Dialect, data)
		if err != nil {
			return protocol.Event{}, nil, fmt.Errorf("%s payload from %s: %v", compat.ToolTitle(c.Dialect), name, err)
		}
		rep.Dialect, rep.AgentEvent = c.Dialect, in.Name
		ev, ok := protocol.Lookup(in.NooraEvent())
		if !ok {
			return protocol.Event{}, nil, &exitError{code: 1, err: fmt.Errorf("%s; no hook would run", in.Unmapped())}
		}
		return ev, in.Kwargs, nil
	}
	if c.Event == "" {
		return protocol.Event{}, nil, usageError("why needs an event, e.g. noora-hooks why pre_tool_call < payload.json (or --dialect claude|cursor)")
	}
	ev, ok := protocol.Lookup(c.Event)
	if !ok {
		return protocol.Event{}, nil, unknownEvent(c.Event)
	}
	kw, err := readKwargs(c.PayloadFile, stdin)
	return ev, kw, err
}

// whyShell explains the shell hooks of the event with the dispatcher's own
// selection, under a consent that only looks: nothing is recorded.
func whyShell(eng *Engine, call runner.Call) []whyHook {
	var byWhere = map[string]config.ShellHook{}
	for _, h := range eng.Config.ShellHooks {
		byWhere[h.Where()] = h
	}
	approval := map[string]string{}
	src := &runner.ShellSource{
		Entries:  eng.Config.ShellHooks,
		Dialects: compat.Dialects(),
		Consent: func(h config.ShellHook) (bool, string) {
			if _, ok := eng.Allowlist().Find(h.Event, h.Command); ok {
				approval[h.Where()] = "allowlist"
				return true, ""
			}
			if eng.Accept {
				approval[h.Where()] = "accept"
				return true, ""
			}
			return false, "not in the allowlist"
		},
	}
	hooks, skips := src.Select(call)
	var out []whyHook
	for _, hk := range hooks {
		var h config.ShellHook
		switch x := hk.(type) {
		case *runner.ShellHook:
			h = x.Config
		case *runner.StreamHook:
			if x.CloseOnly {
				continue
			}
			h = x.Config
		default:
			continue // a Skipped: its Skip says why
		}
		w := shellWhy(eng, h, call)
		w.WouldRun = true
		w.Approval = approval[h.Where()]
		if w.Approval == "accept" {
			w.Note = "not in the allowlist yet: an accept channel (--accept-hooks, NOORA_ACCEPT_HOOKS, hooks_auto_accept) would approve and record it"
		}
		if w.Drift {
			w.Note = "its script changed since it was approved (it still runs; re-approve with noora-hooks approve after reading it)"
		}
		out = append(out, w)
	}
	for _, s := range skips {
		h := byWhere[s.Where]
		w := shellWhy(eng, h, call)
		w.Reason, w.Detail = string(s.Reason), s.Detail
		if s.Reason == runner.SkipNotApproved {
			w.Detail = fmt.Sprintf("(%s, %q) is not in %s; approve it with \"noora-hooks approve\", or run with --accept-hooks, NOORA_ACCEPT_HOOKS=1 or hooks_auto_accept: true", h.Event, h.Command, eng.Store.Path)
		}
		out = append(out, w)
	}
	sortWhy(out)
	return out
}

func shellWhy(eng *Engine, h config.ShellHook, call runner.Call) whyHook {
	w := whyHook{Source: "shell", Hook: h.Command, Where: h.Where(), Dialect: h.Dialect}
	if h.Matcher != nil {
		w.Matcher = h.Matcher.Source
	}
	s := eng.stateOf(h)
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
func sortWhy(hooks []whyHook) {
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
func whyPlugins(eng *Engine) []whyHook {
	ps, problems := plugins.Discover(eng.Paths.Home)
	var out []whyHook
	for _, p := range ps {
		out = append(out, whyHook{Source: "plugin", Hook: p.Name, Where: p.Dir, WouldRun: true,
			Note: "plugins are trusted and have no matcher: every callback it registers for this event runs; which ones it registers is known only once it starts (noora-hooks plugins list starts it)"})
	}
	for _, pr := range problems {
		out = append(out, whyHook{Source: "plugin", Hook: pr.Name, Where: pr.Dir, Reason: "invalid", Detail: pr.Msg})
	}
	return out
}

// whyOutbound explains the outbound targets: they only observe.
func whyOutbound(eng *Engine, call runner.Call) []whyHook {
	tool, hasTool := protocol.ToolName(call.Kwargs)
	var out []whyHook
	for _, t := range eng.Config.Outbound {
		w := whyHook{Source: "outbound", Hook: t.Name, Where: t.URL}
		if t.Matcher != nil {
			w.Matcher = t.Matcher.Source
		}
		switch {
		case t.Wants(call.Event, tool, hasTool):
			w.WouldRun, w.Note = true, "spooled for delivery; webhooks never change the answer"
		case !contains(t.Events, call.Event.Name):
			w.Reason, w.Detail = "event", fmt.Sprintf("its events are %s", strings.Join(t.Events, ", "))
		default:
			w.Reason, w.Detail = string(runner.SkipMatcher), runner.MatcherMismatch(t.Matcher, tool, hasTool)
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

func printWhy(w io.Writer, rep whyReport) {
	title := rep.Event
	if rep.AgentEvent != "" {
		title += fmt.Sprintf(" (from %s %s)", compat.ToolTitle(rep.Dialect), rep.AgentEvent)
	}
	fmt.Fprintf(w, "Event:   %s\n", title)
	fmt.Fprintf(w, "Config:  %s\n", rep.Config)
	fmt.Fprintf(w, "Payload: %s\n", rep.Payload)
	if rep.SafeMode {
		fmt.Fprintf(w, "Safe mode: NOORA_SAFE_MODE is on, nothing would run\n")
	}
	if len(rep.Hooks) == 0 {
		fmt.Fprintf(w, "\nNo hook is configured for %s.\n", rep.Event)
	}
	run := 0
	for _, h := range rep.Hooks {
		verdict := "WOULD NOT RUN"
		if h.WouldRun {
			verdict = "WOULD RUN"
			run++
		}
		name := h.Hook
		if h.Source != "shell" {
			name = h.Source + " " + h.Hook
		}
		fmt.Fprintf(w, "\n%-13s  %s\n", verdict, name)
		if h.Where != "" {
			fmt.Fprintf(w, "  where:    %s\n", h.Where)
		}
		if h.Dialect != "" {
			fmt.Fprintf(w, "  dialect:  %s\n", h.Dialect)
		}
		if h.Matcher != "" {
			fmt.Fprintf(w, "  matcher:  %q\n", h.Matcher)
		}
		if h.Source == "shell" {
			approval := "not approved"
			switch {
			case h.ApprovedAt != "":
				approval = "approved " + h.ApprovedAt
			case h.Approval == "allowlist":
				approval = "approved (allowlist entry without a date)"
			case h.Approval == "accept":
				approval = "would be approved by an accept channel"
			}
			if h.Drift {
				approval += ", script changed since"
			}
			fmt.Fprintf(w, "  approval: %s\n", approval)
		}
		if h.Reason != "" {
			fmt.Fprintf(w, "  why not:  %s: %s\n", h.Reason, h.Detail)
		}
		if h.Note != "" {
			fmt.Fprintf(w, "  note:     %s\n", h.Note)
		}
		if len(h.Stdin) > 0 {
			fmt.Fprintf(w, "  reads:    %s\n", h.Stdin)
		}
	}
	for _, o := range rep.Other {
		fmt.Fprintf(w, "\n(%s)\n", o)
	}
	fmt.Fprintf(w, "\n%d of %d would run. Nothing was executed.\n", run, len(rep.Hooks))
}
