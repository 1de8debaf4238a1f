package cli

import (
	"fmt"
	"io"

	"github.com/noora-hooks/noora-hooks/internal/engine"
	"github.com/noora-hooks/noora-hooks/protocol"
)

// ListCmd is `noora-hooks list`.
type ListCmd struct {
	JSON bool `help:"Print the list as JSON (shape: docs/cli.md)." name:"json"`
}

// Help is the long help of `list`.
func (ListCmd) Help() string {
	return `Shell hooks come sorted by event, in config order within one event (the order they run in), each with its command, matcher (tool events), timeout, fail_closed (pre_tool_call), whether and when it was approved, and a WARNING when its script changed since it was approved. Other kinds of hooks follow, each in its own section. With nothing configured, list names the config file it read.`
}

// listSection is a kind of hook that `list` shows after the shell hooks:
// outbound targets, plugins, gateway hooks. An adapter joins the list by
// adding one line to listSections; the section itself lives in its own file.
type listSection struct {
	// Key names the section in `list --json`. Its value there is always a
	// list, empty when nothing of the kind is configured.
	Key string
	// Collect reads what is configured. Its problems are warnings it prints
	// itself, like LoadEngine's; an error stops `list`.
	Collect func(eng *engine.Engine) (listed, error)
}

// listed is one section's content.
type listed struct {
	// Items is encoded under the section's Key: a slice, never nil.
	Items any
	// Count is how many items there are; a section of 0 is not printed in
	// text and does not count as a configured hook.
	Count int
	// Text prints the section for people: a heading line, then one indented
	// block per item.
	Text func(w io.Writer)
}

// listSections are shown after the shell hooks, in the order of SPEC §6:
// outbound targets, plugins, gateway hooks. Add yours with one line, e.g.
// `{Key: "outbound", Collect: listOutbound},`.
var listSections = []listSection{
	{Key: "outbound", Collect: listOutbound},          // list_outbound.go
	{Key: "plugins", Collect: listPlugins},            // list_plugins.go
	{Key: "gateway_hooks", Collect: listGatewayHooks}, // list_plugins.go
}

// Run prints every configured hook.
func (c *ListCmd) Run(g *Globals, env *Env) error {
	eng, err := loadManaged(g, env)
	if err != nil {
		return err
	}
	if eng.SafeMode {
		env.Warnf("%s", safeModeNote)
	}
	queues := askServe(eng.Paths, env)
	states := eng.States()

	sections := make([]listed, len(listSections))
	total := len(states)
	for i, s := range listSections {
		if sections[i], err = s.Collect(eng); err != nil {
			return err
		}
		total += sections[i].Count
	}

	if c.JSON {
		return writeJSON(env.Stdout, listJSON(eng, states, sections, queues))
	}

	w := printableWriter{env.Stdout} // for a human: escaped
	if total == 0 {
		fmt.Fprintln(w, noHooksMessage(eng))
		return nil
	}
	fmt.Fprintf(w, "Config: %s\n", eng.Paths.Config)
	if len(states) > 0 {
		fmt.Fprintf(w, "\nShell hooks (%d):\n", len(states))
		printShellHooks(w, eng, states, queues)
	}
	for _, s := range sections {
		if s.Count > 0 {
			fmt.Fprintln(w)
			s.Text(w)
		}
	}
	if queues != nil {
		printObserverQueues(w, queues)
	}
	return nil
}

// listJSON is the document of `list --json` (docs/cli.md): the engine's
// listing with serve's queues, then the other kinds of hook.
func listJSON(eng *engine.Engine, states []engine.HookState, sections []listed, queues *serveQueues) protocol.Object {
	listing := eng.Listing(nil)
	for i, s := range states {
		listing.ShellHooks[i].Queue = queues.of(s.Hook)
	}
	if queues != nil {
		listing.ObserverQueues = queues.all
	}
	out := protocol.Object{
		{Key: "config", Value: protocol.String(listing.Config)},
		{Key: "config_exists", Value: protocol.Raw(listing.ConfigExists)},
		{Key: "safe_mode", Value: protocol.Raw(listing.SafeMode)},
		{Key: "auto_accept", Value: protocol.Raw(listing.AutoAccept)},
		{Key: "shell_hooks", Value: protocol.Raw(listing.ShellHooks)},
	}
	for i, s := range listSections {
		out = append(out, protocol.Field{Key: s.Key, Value: protocol.Raw(sections[i].Items)})
	}
	return append(out, protocol.Field{Key: "observer_queues", Value: protocol.Raw(listing.ObserverQueues)})
}

// noHooksMessage tells a user with nothing configured where we looked and how
// to add a hook.
func noHooksMessage(eng *engine.Engine) string {
	why := "it has no hooks"
	if !eng.Config.Exists {
		why = "the file does not exist"
	}
	return fmt.Sprintf(`No hooks are configured in %s (%s).
Add a shell hook under "hooks:" in that file, for example:

  hooks:
    pre_tool_call:
      - matcher: terminal
        command: ~/.noora/agent-hooks/guard.sh

then run "noora-hooks approve" to approve it, and "noora-hooks test pre_tool_call" to try it.
(Another file: --config FILE; another home: --home DIR or NOORA_HOME.)`, eng.Paths.Config, why)
}

func printShellHooks(w io.Writer, eng *engine.Engine, states []engine.HookState, queues *serveQueues) {
	event := ""
	for _, s := range states {
		h := s.Hook
		if h.Event != event {
			event = h.Event
			fmt.Fprintf(w, "\n  %s\n", event)
		}
		fmt.Fprintf(w, "    - command:     %s\n", h.Command)
		if ev, _ := protocol.Lookup(h.Event); ev.ToolScoped() {
			switch {
			case h.Matcher == nil:
				fmt.Fprintf(w, "      matcher:     (every tool)\n")
			case h.Matcher.Literal():
				fmt.Fprintf(w, "      matcher:     %s (not a valid regular expression: compared as text)\n", h.Matcher.Source)
			default:
				fmt.Fprintf(w, "      matcher:     %s\n", h.Matcher.Source)
			}
		}
		fmt.Fprintf(w, "      timeout:     %s\n", seconds(h.Timeout))
		if h.Stream {
			fmt.Fprintf(w, "      stream:      yes (one process per session reads every event of the stream)\n")
		}
		if h.Event == protocol.PreToolCall {
			fmt.Fprintf(w, "      fail_closed: %s\n", yesNo(h.FailClosed))
		}
		fmt.Fprintf(w, "      approved:    %s\n", approvalText(eng, s))
		if q := queues.of(h); q != nil {
			fmt.Fprintf(w, "      queue:       %s\n", queueText(*q))
		}
		if s.Drift {
			fmt.Fprintf(w, "      WARNING:     %s\n", driftText(s))
		}
	}
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func approvalText(eng *engine.Engine, s engine.HookState) string {
	switch {
	case s.Approved:
		if t, ok := engine.StoredTime(s.Approval.ApprovedAt); ok {
			return "yes, on " + textTime(t)
		}
		return "yes (allowlisted by hand, no date)"
	case eng.Accept:
		return "no, but auto-accept is on: it is approved and recorded when it first runs"
	default:
		return `no: run "noora-hooks approve"`
	}
}

// driftText explains a drift and what to do about it.
func driftText(s engine.HookState) string {
	return driftFact(s) + `; review it, then run "noora-hooks approve" to approve this version`
}

// driftFact says what changed: another file, other content, a newer mtime.
func driftFact(s engine.HookState) string {
	return s.DriftWhy
}
