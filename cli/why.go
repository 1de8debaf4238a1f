package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/noora-hooks/noora-hooks/internal/compat"
	"github.com/noora-hooks/noora-hooks/internal/engine"
	"github.com/noora-hooks/noora-hooks/protocol"
)

// WhyCmd is `noora-hooks why <event>`: a dry run that explains, hook by
// hook, what exec would do with a payload, and executes nothing.
type WhyCmd struct {
	Event       string `arg:"" optional:"" help:"The event, e.g. pre_tool_call. Not with --dialect: the payload names it." predictor:"event"`
	PayloadFile string `help:"Read the kwargs (or, with --dialect, that tool's payload) from FILE instead of stdin." placeholder:"FILE" type:"path"`
	Dialect     string `help:"Read the payload Claude Code (claude), Cursor (cursor), Gemini CLI (gemini) or Codex CLI (codex) hands its hook, as exec --dialect does." placeholder:"TOOL"`
	JSON        bool   `help:"Print the explanation as JSON (shape: docs/journal.md)." name:"json"`
}

// Help is the long help of `why`.
func (WhyCmd) Help() string {
	return `For the payload given (on stdin, or --payload-file; none when stdin is a terminal), every configured hook of every kind is explained: would it run, and if not, exactly why (its matcher and the tool, its approval, its dialect's rules, safe mode); which config line and which approval decided it; what the payload looks like to a dialect hook. Nothing is executed: no hook runs, no plugin starts, no approval is recorded.`
}

// Run explains the event: the engine explains, this prints.
func (c *WhyCmd) Run(g *Globals, env *Env) error {
	origin, event, kw, err := c.read(env)
	if err != nil {
		return err
	}
	eng, err := loadManaged(g, env)
	if err != nil {
		return err
	}
	defer eng.Close()
	cwd, err := Cwd()
	if err != nil {
		return err
	}
	rep := eng.Why(origin, event, kw, cwd)
	if c.JSON {
		return writeJSON(env.Stdout, rep)
	}
	printWhy(env.Stdout, rep)
	return nil
}

// read takes the event and kwargs from the arguments and the payload.
func (c *WhyCmd) read(env *Env) (engine.Origin, protocol.Event, protocol.Kwargs, error) {
	var origin engine.Origin
	stdin := env.Stdin
	if f, ok := stdin.(*os.File); ok && isTerminal(f) && c.PayloadFile == "" {
		stdin = strings.NewReader("") // nobody is going to type a payload
	}
	if c.Dialect != "" {
		if _, ok := compat.Dialects()[c.Dialect]; !ok {
			return origin, protocol.Event{}, nil, usageError("--dialect must be %s, %s, %s or %s, got %q", compat.Claude, compat.Cursor, compat.Gemini, compat.Codex, c.Dialect)
		}
		if c.Event != "" {
			return origin, protocol.Event{}, nil, usageError("why --dialect %s takes no event: it comes from the payload's hook_event_name (got %q)", c.Dialect, c.Event)
		}
		data, name, err := readInput("payload", c.PayloadFile, stdin, MaxPayload)
		if err != nil {
			return origin, protocol.Event{}, nil, err
		}
		in, err := compat.Decode(c.Dialect, data)
		if err != nil {
			return origin, protocol.Event{}, nil, fmt.Errorf("%s payload from %s: %v", compat.ToolTitle(c.Dialect), name, err)
		}
		origin.Dialect, origin.AgentEvent = c.Dialect, in.Name
		ev, ok := protocol.Lookup(in.NooraEvent())
		if !ok {
			return origin, protocol.Event{}, nil, &exitError{code: 1, err: fmt.Errorf("%s; no hook would run", in.Unmapped())}
		}
		return origin, ev, in.Kwargs, nil
	}
	if c.Event == "" {
		return origin, protocol.Event{}, nil, usageError("why needs an event, e.g. noora-hooks why pre_tool_call < payload.json (or --dialect claude|cursor|gemini|codex)")
	}
	ev, ok := protocol.Lookup(c.Event)
	if !ok {
		return origin, protocol.Event{}, nil, unknownEvent(c.Event)
	}
	kw, err := readKwargs(c.PayloadFile, stdin)
	return origin, ev, kw, err
}

func printWhy(w io.Writer, rep engine.Explanation) {
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
