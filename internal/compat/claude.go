package compat

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/noora-hooks/noora-hooks/internal/dispatch"
	"github.com/noora-hooks/noora-hooks/internal/runner"
	"github.com/noora-hooks/noora-hooks/internal/shellhook"

	"github.com/tidwall/gjson"

	"github.com/noora-hooks/noora-hooks/protocol"
)

// claudeDialect runs hooks written for Claude Code: they read Claude's
// payload, are matched by Claude's rules and answer by Claude's rules
// (Hooks reference: "Hook input and output", "Exit code output", "JSON
// output", "Decision control"): JSON is read only on exit 0; exit 2 blocks
// with stderr where the event can block; plain text on UserPromptSubmit and
// SessionStart is context.
var claudeDialect = dialect{tool: Claude, projectVar: "CLAUDE_PROJECT_DIR", payload: claudePayload, read: readClaude}

// claudePayload is what Claude Code would send for call: its common fields
// (session_id, transcript_path when known, cwd, permission_mode,
// hook_event_name), then the event's own.
func claudePayload(ev *Event, call dispatch.Call) protocol.Object {
	kw := call.Kwargs
	p := protocol.Object{{Key: "session_id", Value: sessionID(kw)}}
	if v, ok := kwValue(kw, "transcript_path"); ok {
		p = append(p, protocol.Field{Key: "transcript_path", Value: v})
	}
	p = append(p, protocol.Field{Key: "cwd", Value: protocol.String(call.Cwd)})
	mode, ok := kwValue(kw, "permission_mode")
	if !ok {
		mode = protocol.String("default")
	}
	p = append(p,
		protocol.Field{Key: "permission_mode", Value: mode},
		protocol.Field{Key: "hook_event_name", Value: protocol.String(ev.Name)})

	add := func(key string, v json.RawMessage) { p = append(p, protocol.Field{Key: key, Value: v}) }
	addFrom := func(key string, keys ...string) {
		if v, ok := kwValue(kw, keys...); ok {
			add(key, v)
		}
	}
	switch ev.Name {
	case "PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest":
		tool, input := claudeToolCall(ev, kw)
		add("tool_name", protocol.String(tool))
		add("tool_input", protocol.Raw(input))
		switch ev.Name {
		case "PostToolUse":
			add("tool_response", toolResponse(kw))
		case "PostToolUseFailure":
			add("error", protocol.String(toolError(kw)))
			addFrom("is_interrupt", "is_interrupt")
		case "PermissionRequest":
			addFrom("permission_suggestions", "permission_suggestions")
		}
		if ev.Name != "PermissionRequest" {
			addFrom("tool_use_id", "tool_use_id", "tool_call_id")
		}
	case "UserPromptSubmit":
		add("prompt", stringOr(kw, "", "user_message", "prompt"))
	case "Stop", "SubagentStop":
		active, ok := kwValue(kw, "stop_hook_active")
		if !ok {
			// Noora counts the nudges of this turn; Claude says whether one
			// is already under way.
			attempt := gjson.ParseBytes(raw(kw, "attempt")).Int()
			active = protocol.Raw(attempt > 0)
		}
		add("stop_hook_active", active)
		if ev.Name == "SubagentStop" {
			addFrom("agent_id", "agent_id", "child_subagent_id", "child_session_id")
			addFrom("agent_type", "agent_type", "child_role")
			addFrom("agent_transcript_path", "agent_transcript_path")
			addFrom("last_assistant_message", "last_assistant_message", "child_summary")
		} else {
			addFrom("last_assistant_message", "last_assistant_message", "final_response")
		}
	case "SubagentStart":
		addFrom("agent_id", "agent_id", "child_subagent_id", "child_session_id")
		addFrom("agent_type", "agent_type", "child_role")
	case "SessionStart":
		add("source", stringOr(kw, "startup", "source"))
		addFrom("model", "model")
	case "SessionEnd":
		add("reason", stringOr(kw, "other", "reason"))
	case "Notification":
		msg, ok := kw.GetString("message")
		if !ok {
			msg, ok = kw.GetString("description")
		}
		if !ok {
			command, _ := kw.GetString("command")
			msg = "Noora needs your approval to run: " + command
		}
		add("message", protocol.String(msg))
		addFrom("title", "title")
		add("notification_type", stringOr(kw, "permission_prompt", "notification_type"))
	}
	return p
}

// claudeToolCall is the tool call an event is about, in Claude's names. An
// approval request of the Noora agent is about a terminal command.
func claudeToolCall(ev *Event, kw protocol.Kwargs) (string, protocol.Object) {
	tool, hasTool := protocol.ToolName(kw)
	args, _ := protocol.ToolArgs(kw)
	if !hasTool && ev.Name == "PermissionRequest" {
		tool = "terminal"
		args = protocol.Object{}
		for _, k := range []string{"command", "description"} {
			if v, ok := kwValue(kw, k); ok {
				args = append(args, protocol.Field{Key: k, Value: v})
			}
		}
	}
	name, input := ClaudeTool(tool, args)
	if input == nil {
		input = protocol.Object{}
	}
	return name, input
}

// toolResponse: Claude hands hooks the tool's structured response, in its
// own shape per tool (results.go); Noora's result is a string, often JSON
// text, which is unwrapped when it is.
func toolResponse(kw protocol.Kwargs) json.RawMessage {
	if v, ok := kwValue(kw, "tool_response"); ok {
		return v
	}
	v, ok := kwValue(kw, "result")
	if !ok {
		return json.RawMessage("null")
	}
	tool, _ := protocol.ToolName(kw)
	args, _ := protocol.ToolArgs(kw)
	return claudeResponse(tool, args, v)
}

func toolError(kw protocol.Kwargs) string {
	for _, k := range []string{"error", "error_message", "result"} {
		if s, ok := kw.GetString(k); ok && s != "" {
			return s
		}
	}
	return ""
}

func readClaude(ev *Event, call dispatch.Call, out runner.Outcome) shellhook.Reading {
	var r shellhook.Reading
	switch {
	case out.Code == 2:
		return readClaudeExit2(ev, out)
	case out.Code != 0:
		r.Failed = true // Claude reads no JSON from a failed hook
		return r
	}
	stdout, v, done, err := claudeStdout(&r, out)
	if done {
		return r
	}
	if err != nil || !v.IsObject() {
		if ev.Name == "UserPromptSubmit" || ev.Name == "SessionStart" {
			// "stdout is added as context that Claude can see" (Exit code output).
			r.Answer = protocol.Answer{Kind: protocol.Context, Text: stdout}
			return sessionContext(ev, r)
		}
		// Elsewhere Claude shows plain stdout in verbose mode only: it is a
		// log, not an answer, unless it looks like broken JSON.
		r.Unusable = true
		if errors.Is(err, protocol.ErrTooDeep) {
			r.Warnings = append(r.Warnings, fmt.Sprintf("stdout nests arrays and objects more than %d levels deep; ignoring it", protocol.MaxDepth))
		} else if err != nil && (stdout[0] == '{' || stdout[0] == '[') {
			r.Warnings = append(r.Warnings, "stdout is not valid JSON; ignoring it: "+shellhook.Excerpt(stdout))
		}
		return r
	}
	r = readClaudeJSON(ev, call, v)
	return sessionContext(ev, r)
}

// claudeStdout reads a Claude-style hook's stdout (Claude Code and Codex CLI
// read it alike): trimmed, and parsed as one JSON value. done is true when
// there is nothing more to read: empty stdout, or stdout cut at the bound (r
// says so).
func claudeStdout(r *shellhook.Reading, out runner.Outcome) (stdout string, v gjson.Result, done bool, err error) {
	stdout = strings.TrimSpace(string(out.Stdout))
	if stdout == "" {
		return "", v, true, nil
	}
	if out.StdoutTruncated {
		r.Unusable = true
		r.Warnings = append(r.Warnings, fmt.Sprintf("stdout is over %d MiB and was cut; ignoring it", runner.StdoutLimit>>20))
		return stdout, v, true, nil
	}
	v, _, err = protocol.Parse([]byte(stdout))
	return stdout, v, false, err
}

// sessionContext: Claude adds a SessionStart hook's context to the session;
// on_session_start only observes, so say that it goes nowhere.
func sessionContext(ev *Event, r shellhook.Reading) shellhook.Reading {
	if ev.Name == "SessionStart" && r.Answer.Kind == protocol.Context {
		r.Warnings = append(r.Warnings, noCounterpart(ev, "context at session start reaches the model", r.Answer.Text)+
			" (a pre_llm_call hook can add it on the first turn: is_first_turn)")
	}
	return r
}

// readClaudeExit2: "Exit 2 means a blocking error. Claude Code ignores stdout
// and any JSON in it"; its effect depends on the event (Exit code 2
// behavior per event).
func readClaudeExit2(ev *Event, out runner.Outcome) shellhook.Reading {
	var r shellhook.Reading
	stderr := DialectMessage(out)
	switch ev.Name {
	case "PreToolUse":
		r.Answer = protocol.Answer{Kind: protocol.Block, Message: orDefault(stderr)}
	case "PostToolUse", "PostToolUseFailure":
		// "stderr is shown to Claude" after the call: context.
		if stderr != "" {
			r.Answer = protocol.Answer{Kind: protocol.Context, Text: stderr}
		}
	case "Stop":
		if stderr == "" {
			r.Warnings = append(r.Warnings, "exit 2 keeps Claude going, but pre_verify needs a message and stderr is empty; ignored")
		} else {
			r.Answer = protocol.Answer{Kind: protocol.Continue, Message: stderr}
		}
	case "UserPromptSubmit", "PermissionRequest", "SubagentStop":
		r.Warnings = append(r.Warnings, noCounterpart(ev, exit2Meaning[ev.Name], stderr))
	default:
		r.Failed = true // "Shows stderr to user only"
	}
	return r
}

var exit2Meaning = map[string]string{
	"UserPromptSubmit":  "exit 2 rejects the prompt",
	"PermissionRequest": "exit 2 denies the permission",
	"SubagentStop":      "exit 2 keeps the subagent going",
}

// noCounterpart is the warning for an answer Noora cannot act on.
func noCounterpart(ev *Event, what, detail string) string {
	msg := fmt.Sprintf("%s in %s (%s), which %s cannot do; ignored", what, ToolTitle(ev.Dialect), ev.Name, ev.Noora)
	if detail != "" {
		msg += ": " + shellhook.Excerpt(detail)
	}
	return msg
}

func readClaudeJSON(ev *Event, call dispatch.Call, v gjson.Result) shellhook.Reading {
	var r shellhook.Reading
	get := protocol.Member
	hso := get(v, "hookSpecificOutput")
	if !hso.IsObject() {
		hso = gjson.Result{}
	}
	decision := get(v, "decision").String()
	reason := get(v, "reason")

	// "continue: false" stops Claude whatever the event, and takes
	// precedence over the event's own decision fields: it is Noora's stop
	// directive (SPEC §4). The tool call it came before does not run.
	if c := get(v, "continue"); c.Type == gjson.False {
		why := firstNonBlank(get(v, "stopReason"), reason)
		if ev.Name == "PreToolUse" {
			msg := firstNonBlank(hso.Get("permissionDecisionReason"), reason, get(v, "stopReason"))
			r.Answer = protocol.Answer{Kind: protocol.Block, Message: orDefault(msg)}
		}
		r.Answer.Stop, r.Answer.StopReason = true, why
		return r
	}

	switch ev.Name {
	case "PreToolUse":
		r.Answer = readClaudePermission(call, hso, decision, reason, v)
		if ctx := get(hso, "additionalContext").String(); strings.TrimSpace(ctx) != "" {
			r.Warnings = append(r.Warnings, noCounterpart(ev, "additionalContext adds context before a tool runs", ctx))
		}
	case "UserPromptSubmit", "SessionStart":
		if decision == "block" {
			r.Warnings = append(r.Warnings, noCounterpart(ev, "decision: block rejects the prompt", reason.String()))
		}
		if ctx := get(hso, "additionalContext"); ctx.Type == gjson.String && strings.TrimSpace(ctx.String()) != "" {
			r.Answer = protocol.Answer{Kind: protocol.Context, Text: ctx.String()}
		}
	case "PermissionRequest":
		if d := get(hso, "decision"); d.IsObject() {
			r.Warnings = append(r.Warnings, noCounterpart(ev, "decision answers the permission dialog ("+get(d, "behavior").String()+")", get(d, "message").String()))
		}
	case "Stop":
		if decision == "block" {
			if msg := firstNonBlank(reason); msg != "" {
				r.Answer = protocol.Answer{Kind: protocol.Continue, Message: msg}
			} else {
				r.Warnings = append(r.Warnings, "decision: block without a reason cannot keep the agent going (pre_verify needs a message); ignored")
			}
		}
	case "PostToolUse", "PostToolUseFailure":
		// What Claude shows the model after the call: the reason of a
		// block and additionalContext, in the combined answer's "context".
		var parts []string
		if decision == "block" {
			if msg := firstNonBlank(reason); msg != "" {
				parts = append(parts, msg)
			}
		}
		if ctx := firstNonBlank(get(hso, "additionalContext")); ctx != "" {
			parts = append(parts, ctx)
		}
		if len(parts) > 0 {
			r.Answer = protocol.Answer{Kind: protocol.Context, Text: strings.Join(parts, "\n\n")}
		}
	case "SubagentStop":
		if decision == "block" {
			r.Warnings = append(r.Warnings, noCounterpart(ev, "decision: block keeps the subagent going", reason.String()))
		}
	}
	return r
}

// readClaudePermission reads PreToolUse decision control. "allow" is no
// answer: Noora has nothing that skips its own approval, and a hook must not
// gain that by moving here. updatedInput is mapped back to Noora's keys and
// becomes a modify, which Noora shallow-merges (Claude replaces the input).
func readClaudePermission(call dispatch.Call, hso gjson.Result, decision string, reason, v gjson.Result) protocol.Answer {
	var updated protocol.Object
	if in := hso.Get("updatedInput"); in.IsObject() {
		updated = nooraUpdate(call, in)
	}
	switch hso.Get("permissionDecision").String() {
	case "deny":
		return protocol.Answer{Kind: protocol.Block, Message: orDefault(firstNonBlank(hso.Get("permissionDecisionReason")))}
	case "ask":
		return protocol.Answer{Kind: protocol.Approve, Message: hso.Get("permissionDecisionReason").String(), Args: updated}
	}
	if updated != nil {
		return protocol.Answer{Kind: protocol.Modify, Args: updated}
	}
	// The older top-level fields, and the Claude-style modify the Noora
	// guide documents.
	switch decision {
	case "block":
		return protocol.Answer{Kind: protocol.Block, Message: orDefault(firstNonBlank(reason, v.Get("message")))}
	case "modify":
		if in := v.Get("tool_input"); in.IsObject() {
			return protocol.Answer{Kind: protocol.Modify, Args: nooraUpdate(call, in)}
		}
	}
	return protocol.Answer{}
}

// nooraUpdate maps a Claude tool_input that rewrites call's arguments back
// to Noora's keys.
func nooraUpdate(call dispatch.Call, in gjson.Result) protocol.Object {
	obj, _ := protocol.ParseObject([]byte(in.Raw))
	if obj == nil {
		obj = protocol.Object{}
	}
	tool, _ := protocol.ToolName(call.Kwargs)
	args, _ := protocol.ToolArgs(call.Kwargs)
	claudeName := ClaudeToolName(tool, args)
	for i := range claudeTools {
		if r := &claudeTools[i]; r.Claude == claudeName && r.Noora == tool {
			return r.renameToNoora(obj)
		}
	}
	return obj
}

// Helpers over kwargs and answers.

func sessionID(kw protocol.Kwargs) json.RawMessage {
	for _, k := range []string{"session_id", "parent_session_id"} {
		if v, ok := kwValue(kw, k); ok {
			return v
		}
	}
	return protocol.String("")
}

// kwValue returns the first of keys present with a non-null value.
func kwValue(kw protocol.Kwargs, keys ...string) (json.RawMessage, bool) {
	for _, k := range keys {
		if v, ok := kw.Get(k); ok && strings.TrimSpace(string(v)) != "null" && len(v) > 0 {
			return v, true
		}
	}
	return nil, false
}

func raw(kw protocol.Kwargs, key string) []byte {
	v, _ := kw.Get(key)
	return v
}

func stringOr(kw protocol.Kwargs, def string, keys ...string) json.RawMessage {
	for _, k := range keys {
		if s, ok := kw.GetString(k); ok {
			return protocol.String(s)
		}
	}
	return protocol.String(def)
}

func firstNonBlank(candidates ...gjson.Result) string {
	for _, c := range candidates {
		if c.Type == gjson.String && strings.TrimSpace(c.String()) != "" {
			return c.String()
		}
	}
	return ""
}

func orDefault(msg string) string {
	if strings.TrimSpace(msg) == "" {
		return protocol.DefaultBlockMessage
	}
	return msg
}
