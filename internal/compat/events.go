package compat

import (
	"fmt"
	"strings"

	"github.com/noora-hooks/noora-hooks/internal/dispatch"

	"github.com/noora-hooks/noora-hooks/internal/config"
	"github.com/noora-hooks/noora-hooks/protocol"
)

// Event is one hook event of Claude Code or Cursor and what it is in Noora.
type Event struct {
	Dialect string
	Name    string // as that tool spells it
	Noora   string // the Noora event; "" when Noora has none
	Missing string // why Noora has none, for the warning
	// Matcher is the payload field the tool's matcher filters on; "" when
	// the tool ignores matchers on this event.
	Matcher string
	// Tools, when set, says which Noora tools the event stands for (Cursor
	// has one event per kind of tool).
	Tools func(tool string) bool
	// Outcome narrows post_tool_call to successful or failed calls.
	Outcome outcome
	// Default: the event a dialect hook on this Noora event is told about
	// when its entry names none (several events can share a Noora event).
	Default bool
}

type outcome int

const (
	anyOutcome outcome = iota
	succeeded
	failed
)

// claudeEvents: Claude Code's hook events (Hooks reference, February 2026),
// in the order the reference lists them, then those Claude Code 2.1.332
// added (the event list in its binary).
var claudeEvents = []Event{
	{Name: "SessionStart", Noora: "on_session_start", Matcher: "source", Default: true},
	{Name: "UserPromptSubmit", Noora: protocol.PreLLMCall, Default: true},
	{Name: "PreToolUse", Noora: protocol.PreToolCall, Matcher: "tool_name", Default: true},
	{Name: "PermissionRequest", Noora: "pre_approval_request", Matcher: "tool_name", Default: true},
	{Name: "PostToolUse", Noora: protocol.PostToolCall, Matcher: "tool_name", Outcome: succeeded, Default: true},
	{Name: "PostToolUseFailure", Noora: protocol.PostToolCall, Matcher: "tool_name", Outcome: failed, Default: true},
	{Name: "Notification", Noora: "pre_approval_request", Matcher: "notification_type"},
	{Name: "SubagentStart", Noora: "subagent_start", Matcher: "agent_type", Default: true},
	{Name: "SubagentStop", Noora: "subagent_stop", Matcher: "agent_type", Default: true},
	{Name: "Stop", Noora: protocol.PreVerify, Default: true},
	{Name: "TeammateIdle", Missing: "Noora has no agent teams"},
	{Name: "TaskCompleted", Missing: "Noora has no shared task list to gate"},
	{Name: "TaskCreated", Missing: "Noora has no shared task list to gate"},
	{Name: "PreCompact", Missing: "Noora has no event before context compaction"},
	{Name: "PostCompact", Missing: "Noora has no event after context compaction"},
	{Name: "SessionEnd", Noora: "on_session_end", Matcher: "reason", Default: true},
	{Name: "ConfigChange", Missing: "Noora has no event for configuration changes"},
	{Name: "WorktreeCreate", Missing: "Noora does not create worktrees through hooks"},
	{Name: "WorktreeRemove", Missing: "Noora does not remove worktrees through hooks"},
	{Name: "StopFailure", Missing: "Noora has no event for a turn that ends in an API error (api_request_error observes each failed request)"},
	{Name: "InstructionsLoaded", Missing: "Noora has no event for loaded instruction files"},
	{Name: "Elicitation", Missing: "Noora has no MCP elicitation events"},
	{Name: "ElicitationResult", Missing: "Noora has no MCP elicitation events"},
	{Name: "PermissionDenied", Missing: "Noora has no event for a denied permission (post_approval_response observes every decision)"},
	// Added by Claude Code 2.1.332 (its own list of hook events).
	{Name: "PostToolBatch", Missing: "Noora has no event after a batch of parallel tool calls (post_tool_call fires for each)"},
	{Name: "UserPromptExpansion", Missing: "Noora has no event for the expansion of a slash command"},
	{Name: "PreModelSwitch", Missing: "Noora has no event for a model switch"},
	{Name: "PostModelSwitch", Missing: "Noora has no event for a model switch"},
	{Name: "Setup", Missing: "Noora has no repository setup or maintenance event"},
	{Name: "CwdChanged", Missing: "Noora has no event for a change of working directory"},
	{Name: "FileChanged", Missing: "Noora has no file watcher events"},
	{Name: "DirectoryAdded", Missing: "Noora has no event for an added working directory"},
	{Name: "MessageDisplay", Missing: "Noora has no event for displaying a message"},
	{Name: "PreSkillShellCommand", Missing: "Noora has no event before a skill's shell command (pre_tool_call covers the agent's own terminal calls)"},
}

// cursorEvents: Cursor's agent and Tab hook events (hooks.json version 1,
// Cursor 1.7).
var cursorEvents = []Event{
	{Name: "beforeShellExecution", Noora: protocol.PreToolCall, Matcher: "command", Tools: isTerminal, Default: true},
	{Name: "beforeMCPExecution", Noora: protocol.PreToolCall, Matcher: "tool_name", Tools: isMCP, Default: true},
	{Name: "beforeReadFile", Noora: protocol.PreToolCall, Matcher: "file_path", Tools: isRead, Default: true},
	{Name: "afterShellExecution", Noora: protocol.PostToolCall, Matcher: "command", Tools: isTerminal, Default: true},
	{Name: "afterMCPExecution", Noora: protocol.PostToolCall, Matcher: "tool_name", Tools: isMCP, Default: true},
	{Name: "afterFileEdit", Noora: protocol.PostToolCall, Matcher: "file_path", Tools: isEdit, Default: true},
	{Name: "beforeSubmitPrompt", Noora: protocol.PreLLMCall, Default: true},
	{Name: "afterAgentResponse", Noora: "post_llm_call", Default: true},
	{Name: "stop", Noora: protocol.PreVerify, Default: true},
	{Name: "afterAgentThought", Missing: "Noora does not hand finished reasoning blocks to hooks (on_stream_delta streams reasoning only with plugins.stream_reasoning_deltas)"},
	{Name: "beforeTabFileRead", Missing: "Noora has no inline Tab completions"},
	{Name: "afterTabFileEdit", Missing: "Noora has no inline Tab completions"},
}

// Cursor events newer than the reference this package implements: reported
// by name rather than guessed at.
var cursorNewer = []string{"preToolUse", "postToolUse", "postToolUseFailure", "sessionStart", "sessionEnd", "subagentStart", "subagentStop", "preCompact"}

var eventIndex = func() map[string]map[string]*Event {
	idx := map[string]map[string]*Event{Claude: {}, Cursor: {}, Gemini: {}, Codex: {}}
	for _, d := range []string{Gemini, Codex} {
		list := eventList(d)
		for _, ev := range list {
			ev.Dialect = d
			idx[d][ev.Name] = ev
		}
	}
	for i := range claudeEvents {
		claudeEvents[i].Dialect = Claude
		idx[Claude][claudeEvents[i].Name] = &claudeEvents[i]
	}
	for i := range cursorEvents {
		cursorEvents[i].Dialect = Cursor
		idx[Cursor][cursorEvents[i].Name] = &cursorEvents[i]
	}
	for _, name := range cursorNewer {
		idx[Cursor][name] = &Event{Dialect: Cursor, Name: name,
			Missing: "it is newer than the Cursor hooks reference noora-hooks implements (hooks.json version 1, Cursor 1.7)"}
	}
	return idx
}()

// Events returns the events of a dialect in the order of its reference.
func Events(dialect string) []Event {
	switch dialect {
	case Claude:
		return append([]Event(nil), claudeEvents...)
	case Cursor:
		return append([]Event(nil), cursorEvents...)
	case Gemini:
		return append([]Event(nil), geminiEvents...)
	case Codex:
		return append([]Event(nil), codexEvents...)
	}
	return nil
}

// LookupEvent finds an event by the name its tool gives it.
func LookupEvent(dialect, name string) (*Event, bool) {
	ev, ok := eventIndex[dialect][name]
	return ev, ok
}

// fits reports whether the event stands for this particular firing of its
// Noora event: the right kind of tool, the right outcome.
func (e *Event) fits(call dispatch.Call) bool {
	if e.Tools != nil {
		tool, _ := protocol.ToolName(call.Kwargs)
		if !e.Tools(tool) {
			return false
		}
	}
	switch e.Outcome {
	case succeeded:
		return !toolFailed(call.Kwargs)
	case failed:
		return toolFailed(call.Kwargs)
	}
	return true
}

// eventFor finds the foreign event a dialect hook is told about for call:
// the entry's dialect_event when it names one, else the default for call's
// Noora event. nil with no problem means the hook does not apply to this
// firing (a Cursor hook on a tool Cursor has no event for).
func eventFor(dialect string, h config.ShellHook, call dispatch.Call) (*Event, string) {
	title := ToolTitle(dialect)
	if h.DialectEvent != "" {
		ev, ok := LookupEvent(dialect, h.DialectEvent)
		switch {
		case !ok:
			return nil, fmt.Sprintf("dialect_event %q is not a %s hook event; skipped", h.DialectEvent, title)
		case ev.Noora == "":
			return nil, fmt.Sprintf("dialect_event %q has no Noora counterpart (%s); skipped", h.DialectEvent, ev.Missing)
		case ev.Noora != call.Event.Name:
			return nil, fmt.Sprintf("dialect_event %q is %s's name for %s, not %s; skipped", h.DialectEvent, title, ev.Noora, call.Event.Name)
		}
		if !ev.fits(call) {
			return nil, ""
		}
		return ev, ""
	}
	mapped := false
	for _, ev := range eventList(dialect) {
		if ev.Noora != call.Event.Name {
			continue
		}
		mapped = true
		if ev.Default && ev.fits(call) {
			return ev, ""
		}
	}
	if !mapped {
		return nil, fmt.Sprintf("%s has no %s counterpart, so a hook with dialect: %s cannot run on it; skipped", call.Event.Name, title, dialect)
	}
	return nil, ""
}

func eventList(dialect string) []*Event {
	var src []Event
	switch dialect {
	case Claude:
		src = claudeEvents
	case Cursor:
		src = cursorEvents
	case Gemini:
		src = geminiEvents
	case Codex:
		src = codexEvents
	}
	out := make([]*Event, len(src))
	for i := range src {
		out[i] = &src[i]
	}
	return out
}

// toolFailed reads post_tool_call kwargs: a call failed when its status says
// so or it carries an error message (the Noora guide: post_tool_call fires
// "after blocked, error, or successful result").
func toolFailed(kw protocol.Kwargs) bool {
	if s, ok := kw.GetString("status"); ok {
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "", "ok", "success", "succeeded", "completed":
		default:
			return true
		}
	}
	if s, ok := kw.GetString("error_message"); ok && strings.TrimSpace(s) != "" {
		return true
	}
	return false
}

func isTerminal(tool string) bool { return tool == "terminal" }
func isRead(tool string) bool     { return tool == "read_file" }
func isEdit(tool string) bool     { return tool == "write_file" || tool == "patch" }
func isMCP(tool string) bool      { return strings.HasPrefix(tool, "mcp_") }
