package compat

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/noora-hooks/noora-hooks/internal/dispatch"
	"github.com/noora-hooks/noora-hooks/internal/runner"
	"github.com/noora-hooks/noora-hooks/internal/shellhook"

	"github.com/tidwall/gjson"

	"github.com/noora-hooks/noora-hooks/protocol"
)

// Codex CLI: the hook protocol of @openai/codex 0.169.0 as observed (the
// payloads and answers in docs/compat.md) and the output schemas its binary
// validates answers against (pre-tool-use.command.output and its siblings).
// Names and fields are Claude Code's; what differs is a strict output
// schema (an unknown field, or a value Codex does not support, fails the
// hook, and a failed hook lets the call through), one shell tool ("Bash",
// tool_input {command}), a tool_response that is a string, and no project
// directory variable.

// codexEvents: Codex CLI's hook events.
var codexEvents = []Event{
	{Name: "SessionStart", Noora: "on_session_start", Matcher: "source", Default: true},
	{Name: "UserPromptSubmit", Noora: protocol.PreLLMCall, Default: true},
	{Name: "PreToolUse", Noora: protocol.PreToolCall, Matcher: "tool_name", Default: true},
	{Name: "PermissionRequest", Noora: "pre_approval_request", Matcher: "tool_name", Default: true},
	{Name: "PostToolUse", Noora: protocol.PostToolCall, Matcher: "tool_name", Default: true},
	{Name: "PreCompact", Missing: "Noora has no event before context compaction"},
	{Name: "PostCompact", Missing: "Noora has no event after context compaction"},
	{Name: "SubagentStart", Noora: "subagent_start", Matcher: "agent_type", Default: true},
	{Name: "SubagentStop", Noora: "subagent_stop", Matcher: "agent_type", Default: true},
	{Name: "Stop", Noora: protocol.PreVerify, Default: true},
	{Name: "Interrupt", Missing: "Noora has no event for an interrupted turn"},
	{Name: "SessionEnd", Noora: "on_session_end", Matcher: "reason", Default: true},
}

// codexDialect runs hooks written for Codex CLI. Codex sets no variable of
// its own for hooks; its matchers are regular expressions on the
// Claude-style tool name ("Bash").
var codexDialect = dialect{tool: Codex, payload: codexPayload, read: readCodex,
	env:   func(dispatch.Call) []string { return nil },
	match: func(_ *Event, pattern, subject string) bool { return matchCodex(pattern, subject) }}

func matchCodex(pattern, subject string) bool {
	p := strings.TrimSpace(pattern)
	if p == "" || p == "*" {
		return true
	}
	return regexMatch(p, subject)
}

// codexPayload is Claude Code's payload as Codex CLI shapes it: turn_id and
// model next to the common fields, no permission_mode on SessionEnd and the
// compaction events, Bash's tool_input holding the command only, and
// tool_response the tool's output as a string.
func codexPayload(ev *Event, call dispatch.Call) protocol.Object {
	kw := call.Kwargs
	claudeEv := *ev
	claude := claudePayload(&claudeEv, call)
	var p protocol.Object
	for _, f := range claude {
		switch f.Key {
		case "session_id":
			p = append(p, f)
			if v, ok := kwValue(kw, "turn_id"); ok && ev.Name != "SessionStart" && ev.Name != "SessionEnd" {
				p = append(p, protocol.Field{Key: "turn_id", Value: v})
			}
			continue
		case "hook_event_name":
			p = append(p, f)
			if v, ok := kwValue(kw, "model"); ok && ev.Name != "SessionEnd" {
				p = append(p, protocol.Field{Key: "model", Value: v})
			}
			continue
		case "permission_mode":
			if ev.Name == "SessionEnd" {
				continue
			}
		case "model":
			continue // placed above
		case "tool_input":
			if name, _ := claude.GetString("tool_name"); name == "Bash" {
				in := protocol.Object{{Key: "command", Value: stringOr(protocol.Kwargs(mustObject(f.Value)), "", "command")}}
				if ev.Name == "PermissionRequest" {
					in = append(in, protocol.Field{Key: "description", Value: stringOr(protocol.Kwargs(mustObject(f.Value)), "", "description")})
				}
				f.Value = protocol.Raw(in)
			}
		case "tool_response":
			result, ok := kw.GetString("result")
			if !ok {
				result = strings.TrimSpace(string(toolResponse(kw)))
			}
			f.Value = protocol.String(result)
		}
		p = append(p, f)
	}
	return p
}

func mustObject(v json.RawMessage) protocol.Object {
	o, _ := protocol.ParseObject(v)
	return o
}

// readCodex reads an answer by Codex CLI's rules: exit 2 blocks with stderr
// (an empty stderr blocks nothing); other non-zero exits fail; JSON on
// stdout must pass Codex's output schema, or the hook fails and nothing it
// said counts; plain stdout is context on SessionStart and UserPromptSubmit.
func readCodex(ev *Event, call dispatch.Call, out runner.Outcome) shellhook.Reading {
	var r shellhook.Reading
	if out.Code == 2 {
		stderr := strings.TrimSpace(string(out.Stderr))
		if stderr == "" {
			r.Failed = true
			r.Warnings = append(r.Warnings, "exit 2 with an empty stderr blocks nothing in Codex CLI; ignored")
			return r
		}
		switch ev.Name {
		case "PreToolUse":
			r.Answer = protocol.Answer{Kind: protocol.Block, Message: shellhook.StderrMessage(out)}
		case "Stop":
			r.Answer = protocol.Answer{Kind: protocol.Continue, Message: shellhook.Excerpt(stderr)}
		case "UserPromptSubmit":
			r.Warnings = append(r.Warnings, noCounterpart(ev, "exit 2 blocks the prompt", stderr))
		case "PostToolUse":
			r.Warnings = append(r.Warnings, noCounterpart(ev, "exit 2 replaces the tool output the model sees", stderr))
		default:
			r.Failed = true
		}
		return r
	}
	if out.Code != 0 {
		r.Failed = true
		return r
	}
	stdout, v, done, err := claudeStdout(&r, out)
	if done {
		return r
	}
	if err != nil || !v.IsObject() {
		if ev.Name == "UserPromptSubmit" || ev.Name == "SessionStart" {
			r.Answer = protocol.Answer{Kind: protocol.Context, Text: stdout}
			return sessionContext(ev, r)
		}
		return r // Codex ignores plain stdout elsewhere
	}
	if why := CodexRejects(ev.Name, v); why != "" {
		r.Failed = true
		r.Warnings = append(r.Warnings, "Codex CLI rejects this answer ("+why+") and lets the call through; ignored")
		return r
	}
	return readCodexJSON(ev, call, v)
}

func readCodexJSON(ev *Event, call dispatch.Call, v gjson.Result) shellhook.Reading {
	var r shellhook.Reading
	get := protocol.Member
	hso := get(v, "hookSpecificOutput")
	reason := firstNonBlank(get(v, "reason"))
	block := get(v, "decision").String() == "block"
	ctx := get(hso, "additionalContext")
	hasCtx := ctx.Type == gjson.String && strings.TrimSpace(ctx.String()) != ""
	stop := get(v, "continue").Type == gjson.False
	stopReason := firstNonBlank(get(v, "stopReason"), get(v, "reason"))
	switch ev.Name {
	case "PreToolUse":
		switch get(hso, "permissionDecision").String() {
		case "deny":
			r.Answer = protocol.Answer{Kind: protocol.Block, Message: orDefault(get(hso, "permissionDecisionReason").String())}
		case "allow":
			// allow is how Codex takes a rewrite; it grants nothing here.
			r.Answer = protocol.Answer{Kind: protocol.Modify, Args: nooraUpdate(call, get(hso, "updatedInput"))}
		default:
			if block {
				r.Answer = protocol.Answer{Kind: protocol.Block, Message: orDefault(reason)}
			}
		}
		if hasCtx {
			r.Warnings = append(r.Warnings, noCounterpart(ev, "additionalContext adds context before a tool runs", ctx.String()))
		}
	case "PostToolUse":
		if hasCtx {
			r.Answer = protocol.Answer{Kind: protocol.Context, Text: ctx.String()}
		}
		if block || stop {
			r.Warnings = append(r.Warnings, noCounterpart(ev, "a block replaces the tool output the model sees", firstNonBlank(get(v, "reason"), get(v, "stopReason"))))
		}
		return r // continue: false does not stop Codex here
	case "UserPromptSubmit", "SessionStart":
		if hasCtx {
			r.Answer = protocol.Answer{Kind: protocol.Context, Text: ctx.String()}
		}
		if block {
			r.Warnings = append(r.Warnings, noCounterpart(ev, "decision: block rejects the prompt", reason))
		}
		r = sessionContext(ev, r)
	case "Stop":
		if block {
			r.Answer = protocol.Answer{Kind: protocol.Continue, Message: reason}
		}
		return r // stopping is what happens anyway
	case "PermissionRequest":
		if d := get(hso, "decision"); d.IsObject() {
			r.Warnings = append(r.Warnings, noCounterpart(ev, "decision answers the approval request ("+get(d, "behavior").String()+")", get(d, "message").String()))
		}
	}
	if stop {
		r.Answer.Stop, r.Answer.StopReason = true, stopReason
	}
	return r
}

// codexSchema: the top-level fields each event's output schema allows and
// the fields of its hookSpecificOutput (Codex 0.169's *.command.output).
type codexSchema struct {
	top, hso []string
	decision []string // the values "decision" may take
}

var codexCommon = []string{"continue", "stopReason", "suppressOutput", "systemMessage"}

var codexSchemas = map[string]codexSchema{
	"PreToolUse": {top: []string{"decision", "reason", "hookSpecificOutput"}, decision: []string{"approve", "block"},
		hso: []string{"hookEventName", "additionalContext", "permissionDecision", "permissionDecisionReason", "updatedInput"}},
	"PostToolUse": {top: []string{"decision", "reason", "hookSpecificOutput"}, decision: []string{"block"},
		hso: []string{"hookEventName", "additionalContext", "updatedMCPToolOutput"}},
	"PermissionRequest": {top: []string{"hookSpecificOutput"}, hso: []string{"hookEventName", "decision"}},
	"UserPromptSubmit": {top: []string{"decision", "reason", "hookSpecificOutput"}, decision: []string{"block"},
		hso: []string{"hookEventName", "additionalContext"}},
	"SessionStart":  {top: []string{"hookSpecificOutput"}, hso: []string{"hookEventName", "additionalContext"}},
	"SubagentStart": {top: []string{"hookSpecificOutput"}, hso: []string{"hookEventName", "additionalContext"}},
	"Stop":          {top: []string{"decision", "reason"}, decision: []string{"block"}},
	"SubagentStop":  {top: []string{"decision", "reason"}, decision: []string{"block"}},
	"PreCompact":    {},
	"PostCompact":   {},
}

// CodexRejects says why Codex CLI would fail a hook that answered v on
// event ("" when it takes the answer): the output schema, then the checks
// Codex makes on what the schema lets through. A failed hook fails open, so
// the bridge must never print anything this rejects.
func CodexRejects(event string, v gjson.Result) string {
	if !v.IsObject() {
		return "not a JSON object"
	}
	s, ok := codexSchemas[event]
	if !ok {
		if event == "Interrupt" {
			s = codexSchema{}
		} else {
			return ""
		}
	}
	get := func(k string) gjson.Result { return v.Get(gjson.Escape(k)) }
	allowed := append(append([]string(nil), s.top...), codexCommon...)
	if event == "Interrupt" {
		allowed = []string{"systemMessage"}
	}
	if why := codexFields(v, allowed, ""); why != "" {
		return why
	}
	if d := get("decision"); d.Exists() && d.Type != gjson.Null && !contains(s.decision, d.String()) {
		return fmt.Sprintf("unsupported decision %s", d.Raw)
	}
	hso := get("hookSpecificOutput")
	if hso.Exists() && hso.Type != gjson.Null {
		if !hso.IsObject() {
			return "hookSpecificOutput is not an object"
		}
		if why := codexFields(hso, s.hso, "hookSpecificOutput."); why != "" {
			return why
		}
		if n := hso.Get("hookEventName"); n.String() != event || n.Type != gjson.String {
			return "hookSpecificOutput.hookEventName must be " + event
		}
	}
	return codexSupported(event, v, hso)
}

// codexFields checks the fields of object v: each one allowed, each of
// its type (codexType). prefix names v in the message.
func codexFields(v gjson.Result, allowed []string, prefix string) string {
	var why string
	v.ForEach(func(k, val gjson.Result) bool {
		if contains(allowed, k.String()) {
			why = codexType(k.String(), val)
		} else {
			why = unknownField(prefix, k.String())
		}
		return why == ""
	})
	return why
}

// unknownField words a field the schema does not know, as before: a
// top-level one quoted, one of hookSpecificOutput by its path.
func unknownField(prefix, key string) string {
	if prefix == "" {
		return fmt.Sprintf("unknown field %q", key)
	}
	return "unknown field " + prefix + key
}

// codexType checks a field's JSON type against the schema.
func codexType(key string, v gjson.Result) string {
	want := gjson.String
	switch key {
	case "continue", "suppressOutput", "interrupt":
		if v.Type != gjson.True && v.Type != gjson.False {
			return key + " must be a boolean"
		}
		return ""
	case "hookSpecificOutput", "updatedInput", "updatedMCPToolOutput", "updatedPermissions":
		return ""
	case "decision":
		if v.IsObject() || v.Type == gjson.Null {
			return "" // PermissionRequest's decision object; checked by the caller
		}
	case "permissionDecision":
		if v.Type == gjson.String && !contains([]string{"allow", "deny", "ask"}, v.String()) {
			return "unsupported permissionDecision " + v.Raw
		}
	}
	if v.Type != want && v.Type != gjson.Null {
		return key + " must be a string"
	}
	return ""
}

// codexSupported: what Codex refuses although its schema lets it through
// (the messages of its binary: "PreToolUse hook returned unsupported ...").
func codexSupported(event string, v, hso gjson.Result) string {
	get := func(o gjson.Result, k string) gjson.Result { return o.Get(gjson.Escape(k)) }
	present := func(o gjson.Result, k string) bool {
		x := get(o, k)
		return x.Exists() && x.Type != gjson.Null
	}
	if present(v, "decision") && get(v, "decision").String() == "block" && strings.TrimSpace(get(v, "reason").String()) == "" {
		return "decision: block without a non-empty reason"
	}
	switch event {
	case "PreToolUse":
		switch {
		case get(v, "continue").Type == gjson.False:
			return "unsupported continue: false"
		case present(v, "stopReason"):
			return "unsupported stopReason"
		case get(v, "suppressOutput").Type == gjson.True:
			return "unsupported suppressOutput"
		case get(v, "decision").String() == "approve":
			return "unsupported decision: approve"
		case present(v, "reason") && !present(v, "decision"):
			return "reason without decision"
		}
		pd := get(hso, "permissionDecision")
		switch {
		case pd.String() == "ask":
			return "unsupported permissionDecision: ask"
		case pd.String() == "allow" && !present(hso, "updatedInput"):
			return "unsupported permissionDecision: allow without updatedInput"
		case present(hso, "updatedInput") && pd.String() != "allow":
			return "updatedInput without permissionDecision: allow"
		case present(hso, "updatedInput") && get(get(hso, "updatedInput"), "command").Type != gjson.String:
			return "updatedInput without a string command"
		case pd.String() == "deny" && strings.TrimSpace(get(hso, "permissionDecisionReason").String()) == "":
			return "permissionDecision: deny without a non-empty permissionDecisionReason"
		case present(hso, "permissionDecisionReason") && !pd.Exists():
			return "permissionDecisionReason without permissionDecision"
		}
	case "PostToolUse":
		switch {
		case get(v, "suppressOutput").Type == gjson.True:
			return "unsupported suppressOutput"
		case present(v, "reason") && !present(v, "decision"):
			return "reason without decision"
		case present(hso, "updatedMCPToolOutput"):
			return "unsupported updatedMCPToolOutput"
		}
	case "PermissionRequest":
		d := get(hso, "decision")
		switch {
		case get(v, "continue").Type == gjson.False:
			return "unsupported continue: false"
		case present(v, "stopReason"):
			return "unsupported stopReason"
		case get(v, "suppressOutput").Type == gjson.True:
			return "unsupported suppressOutput"
		case d.Exists() && d.Type != gjson.Null && !d.IsObject():
			return "decision must be an object"
		case present(d, "updatedInput"):
			return "unsupported updatedInput"
		case present(d, "updatedPermissions"):
			return "unsupported updatedPermissions"
		case get(d, "interrupt").Type == gjson.True:
			return "unsupported interrupt: true"
		case d.IsObject() && !contains([]string{"allow", "deny"}, get(d, "behavior").String()):
			return "decision.behavior must be allow or deny"
		}
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// encodeCodex writes the combined Noora answer so that Codex CLI takes it:
// only shapes its schema accepts and that were seen to work on the real
// CLI. What Codex cannot do safely is refused rather than let through: it
// has no "ask", so a call Noora wants a person to approve is denied, and so
// is a rewrite Codex cannot apply (anything but a shell command).
func encodeCodex(in Inbound, c protocol.Combined, action, message string, out *Outbound) []byte {
	var o, hso protocol.Object
	set := func(key string, v json.RawMessage) { o = append(o, protocol.Field{Key: key, Value: v}) }
	ctx, _ := c.Answer.GetString("context")
	stop := false
	if v, ok := c.Answer.Get("stop"); ok && gjson.ParseBytes(v).Type == gjson.True {
		stop = true
	}
	stopReason, _ := c.Answer.GetString("stop_reason")
	stopReason = orDefault(stopReason)
	deny := func(reason string) []byte {
		return line(protocol.Object{{Key: "hookSpecificOutput", Value: protocol.Raw(protocol.Object{
			{Key: "hookEventName", Value: protocol.String("PreToolUse")},
			{Key: "permissionDecision", Value: protocol.String("deny")},
			{Key: "permissionDecisionReason", Value: protocol.String(orDefault(reason))},
		})}})
	}
	switch in.Name {
	case "PreToolUse":
		if stop && action != "block" {
			out.Warnings = append(out.Warnings, "Codex CLI cannot stop the run from PreToolUse (continue: false fails the hook); the call is denied instead")
			return deny(stopReason)
		}
		if stop {
			out.Warnings = append(out.Warnings, "Codex CLI cannot stop the run from PreToolUse (continue: false fails the hook); only the denial was sent")
		}
		switch action {
		case "block":
			return deny(message)
		case "approve":
			if message == "" {
				message = approvalMessage
			}
			out.Warnings = append(out.Warnings, "Codex CLI cannot ask for approval from a hook (PreToolUse); the call is denied instead")
			return deny(message + " (Codex CLI cannot ask for approval from a hook, so the call is refused.)")
		case "modify":
			command, ok := codexRewrite(in, c)
			if !ok {
				out.Warnings = append(out.Warnings, "Codex CLI applies a rewrite to a shell command only; this rewrite cannot be sent, so the call is denied instead")
				return deny(rewroteMessage + " Codex CLI cannot apply it, so the call is refused.")
			}
			// allow + updatedInput is the one way Codex takes a rewrite.
			return line(protocol.Object{{Key: "hookSpecificOutput", Value: protocol.Raw(protocol.Object{
				{Key: "hookEventName", Value: protocol.String("PreToolUse")},
				{Key: "permissionDecision", Value: protocol.String("allow")},
				{Key: "updatedInput", Value: protocol.Raw(protocol.Object{{Key: "command", Value: protocol.String(command)}})},
			})}})
		}
		return nil
	case "PostToolUse":
		if strings.TrimSpace(ctx) != "" {
			hso = protocol.Object{{Key: "additionalContext", Value: protocol.String(ctx)}}
		}
		if stop {
			// Codex goes on after PostToolUse: the model sees the reason in
			// place of the tool's output, which is the nearest it has.
			out.Warnings = append(out.Warnings, "Codex CLI does not stop the run at PostToolUse; the model sees the stop reason in place of the tool output")
			set("decision", protocol.String("block"))
			set("reason", protocol.String(stopReason))
		}
	case "UserPromptSubmit":
		if strings.TrimSpace(ctx) != "" {
			hso = protocol.Object{{Key: "additionalContext", Value: protocol.String(ctx)}}
		}
		if stop {
			set("continue", protocol.Raw(false))
			set("stopReason", protocol.String(stopReason))
		}
	case "SessionStart":
		if stop {
			set("continue", protocol.Raw(false))
			set("stopReason", protocol.String(stopReason))
		}
	case "Stop":
		if action == "continue" && strings.TrimSpace(message) != "" {
			set("decision", protocol.String("block"))
			set("reason", protocol.String(message))
		}
	default:
		if stop {
			out.Warnings = append(out.Warnings, "Codex CLI cannot stop the run from "+in.Name+" through noora-hooks; the stop was dropped: "+shellhook.Excerpt(stopReason))
		}
	}
	if len(hso) > 0 {
		hso = append(protocol.Object{{Key: "hookEventName", Value: protocol.String(in.Name)}}, hso...)
		set("hookSpecificOutput", protocol.Raw(hso))
	}
	if o == nil {
		return nil
	}
	return line(o)
}

// codexRewrite is the rewritten command of a shell call, the only rewrite
// Codex applies.
func codexRewrite(in Inbound, c protocol.Combined) (string, bool) {
	tool, _ := protocol.ToolName(in.Kwargs)
	args, ok := mergedArgs(c)
	if tool != "terminal" || !ok {
		return "", false
	}
	// A change to anything but the command (workdir, timeout) would be
	// lost.
	before, _ := protocol.ToolArgs(in.Kwargs)
	for _, f := range args {
		if f.Key == "command" {
			continue
		}
		if old, ok := before.Get(f.Key); !ok || !sameJSON(old, f.Value) {
			return "", false
		}
	}
	return args.GetString("command")
}
