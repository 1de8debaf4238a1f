package compat

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/noora-hooks/noora-hooks/internal/shellhook"

	"github.com/tidwall/gjson"

	"github.com/noora-hooks/noora-hooks/protocol"
)

// Inbound is one call that Claude Code or Cursor made to its hook, read:
// `noora-hooks exec --dialect` answers it by firing the Noora event.
type Inbound struct {
	Dialect string
	Name    string // the tool's event name, from hook_event_name
	// Event is nil when the tool's event is unknown to this package; its
	// Noora is "" when Noora has no counterpart.
	Event  *Event
	Kwargs protocol.Kwargs // the Noora event's kwargs
}

// NooraEvent is the event to fire, or "" when there is none.
func (in Inbound) NooraEvent() string {
	if in.Event == nil {
		return ""
	}
	return in.Event.Noora
}

// Unmapped says why the call cannot be answered by Noora's hooks.
func (in Inbound) Unmapped() string {
	title := ToolTitle(in.Dialect)
	switch {
	case in.Event == nil:
		return fmt.Sprintf("%s event %q is not one noora-hooks knows; answered neutrally", title, in.Name)
	case in.Event.Noora == "":
		return fmt.Sprintf("%s event %s has no Noora counterpart (%s); answered neutrally", title, in.Name, in.Event.Missing)
	}
	return ""
}

// ErrNoEventName marks a payload without a hook_event_name.
var ErrNoEventName = errors.New(`the payload has no "hook_event_name" string`)

// Decode reads the payload that dialect's tool hands its hook (one JSON
// object) and maps it to the Noora event and kwargs. Fields with no Noora
// name are kept under their own, so Noora hooks see them in "extra" and
// dialect hooks get them back.
func Decode(dialect string, data []byte) (Inbound, error) {
	p, err := protocol.ParseObject(data)
	if err != nil {
		return Inbound{}, err
	}
	in := Inbound{Dialect: dialect}
	name, ok := p.GetString("hook_event_name")
	if !ok {
		return Inbound{}, ErrNoEventName
	}
	in.Name = name
	ev, ok := LookupEvent(dialect, name)
	if !ok || ev.Noora == "" {
		if ok {
			in.Event = ev
		}
		return in, nil
	}
	in.Event = ev
	switch dialect {
	case Claude:
		in.Kwargs = claudeKwargs(ev, p)
	case Cursor:
		in.Kwargs = cursorKwargs(ev, p)
	case Gemini:
		in.Kwargs = geminiKwargs(ev, p)
	case Codex:
		// Codex speaks Claude Code's names and fields.
		in.Kwargs = claudeKwargs(ev, p)
	default:
		return Inbound{}, fmt.Errorf("unknown dialect %q", dialect)
	}
	return in, nil
}

// claudeRenames: payload key → Noora kwarg, per event (the inverse of
// claudePayload).
var claudeRenames = map[string]map[string]string{
	"PreToolUse":         {"tool_use_id": "tool_call_id"},
	"PostToolUse":        {"tool_use_id": "tool_call_id"},
	"PostToolUseFailure": {"tool_use_id": "tool_call_id", "error": "error_message"},
	"UserPromptSubmit":   {"prompt": "user_message"},
	"Stop":               {"last_assistant_message": "final_response"},
	"SubagentStart":      {"session_id": "parent_session_id", "agent_id": "child_subagent_id", "agent_type": "child_role"},
	"SubagentStop":       {"session_id": "parent_session_id", "agent_id": "child_session_id", "agent_type": "child_role", "last_assistant_message": "child_summary"},
	"Notification":       {"message": "description"},
}

// attemptOf is Noora's attempt for an agent's stop_hook_active: 1 while a
// stop hook's continuation is under way, else 0.
func attemptOf(stopHookActive json.RawMessage) json.RawMessage {
	if gjson.ParseBytes(stopHookActive).Type == gjson.True {
		return protocol.Raw(1)
	}
	return protocol.Raw(0)
}

func claudeKwargs(ev *Event, p protocol.Object) protocol.Kwargs {
	kw := protocol.Kwargs{}
	renames := claudeRenames[ev.Name]
	toolName, _ := p.GetString("tool_name")
	for _, f := range p {
		switch f.Key {
		case "hook_event_name", "cwd":
			continue // the event, and where noora-hooks itself runs
		case "tool_name":
			input, _ := protocol.ToolArgs(protocol.Kwargs{{Key: "args", Value: raw(p, "tool_input")}})
			name, args := NooraTool(toolName, input)
			kw = kw.With("tool_name", protocol.String(name))
			if args != nil {
				kw = kw.With("args", protocol.Raw(args))
				if ev.Name == "PermissionRequest" {
					// pre_approval_request's own kwargs.
					for _, k := range []string{"command", "description"} {
						if v, ok := args.GetString(k); ok {
							kw = kw.With(k, protocol.String(v))
						}
					}
				}
			}
			continue
		case "tool_input":
			if _, ok := kw.Get("tool_name"); ok || toolName != "" {
				continue
			}
		case "tool_response":
			// Noora's result is a string: JSON text in the Noora tool's
			// shape where it has one (results.go), else the response's.
			kw = kw.With("result", nooraResult(toolName, f.Value))
			continue
		case "stop_hook_active":
			if ev.Name == "Stop" {
				kw = kw.With("attempt", attemptOf(f.Value))
				continue
			}
		}
		key := f.Key
		if to, ok := renames[key]; ok {
			key = to
		}
		kw = kw.With(key, f.Value)
	}
	switch ev.Name {
	case "PostToolUse":
		kw = kw.With("status", protocol.String("success"))
	case "PostToolUseFailure":
		if _, ok := kw.Get("result"); !ok {
			if v, ok := kw.Get("error_message"); ok {
				kw = kw.With("result", v)
			}
		}
		kw = kw.With("status", protocol.String("error"))
	}
	return kw
}

// cursorRenames: payload key → Noora kwarg (the inverse of cursorPayload).
var cursorRenames = map[string]string{
	"conversation_id": "session_id",
	"generation_id":   "turn_id",
}

var cursorEventRenames = map[string]map[string]string{
	"beforeMCPExecution":  {"url": "server_url", "command": "server_command"},
	"afterShellExecution": {"output": "result", "duration": "duration_ms"},
	"afterMCPExecution":   {"result_json": "result", "duration": "duration_ms"},
	"beforeSubmitPrompt":  {"prompt": "user_message"},
	"afterAgentResponse":  {"text": "assistant_response"},
	"stop":                {"loop_count": "attempt"},
}

// cursorToolKeys: payload keys that become the tool call's arguments.
var cursorToolKeys = map[string][]string{
	"beforeShellExecution": {"command", "cwd"},
	"afterShellExecution":  {"command"},
	"beforeMCPExecution":   {"tool_name", "tool_input"},
	"afterMCPExecution":    {"tool_name", "tool_input"},
	"beforeReadFile":       {"file_path"},
	"afterFileEdit":        {"file_path"},
}

func cursorKwargs(ev *Event, p protocol.Object) protocol.Kwargs {
	kw := protocol.Kwargs{}
	payload := gjson.ParseBytes(mustJSON(p))
	tool, args := cursorTool(ev, payload)
	if tool != "" {
		kw = kw.With("tool_name", protocol.String(tool)).With("args", protocol.Raw(args))
	}
	consumed := map[string]bool{"hook_event_name": true}
	for _, k := range cursorToolKeys[ev.Name] {
		consumed[k] = true
	}
	for _, f := range p {
		if consumed[f.Key] {
			continue
		}
		key := f.Key
		if to, ok := cursorRenames[key]; ok {
			key = to
		} else if to, ok := cursorEventRenames[ev.Name][key]; ok {
			key = to
		}
		kw = kw.With(key, f.Value)
	}
	return kw
}

func mustJSON(o protocol.Object) []byte {
	b, _ := o.MarshalJSON()
	return b
}

// Outbound is the answer to give the tool: exit status 0 and Stdout (which
// may be empty).
type Outbound struct {
	Stdout   []byte
	Warnings []string
}

// Messages of answers that the tools cannot express exactly.
const (
	rewroteMessage  = "A Noora hook rewrote this tool call's input; check the new input before it runs."
	approvalMessage = "A Noora hook asks for your approval."
)

// Encode writes the combined Noora answer the way in's tool expects it.
// Nothing here answers "allow": that would skip the tool's own permission
// prompt, which no Noora answer asks for.
func Encode(in Inbound, c protocol.Combined) Outbound {
	var out Outbound
	if why := in.Unmapped(); why != "" {
		out.Warnings = append(out.Warnings, why)
		if in.Dialect == Cursor || in.Dialect == Gemini {
			out.Stdout = []byte("{}\n")
		}
		return out
	}
	action, _ := c.Answer.GetString("action")
	message, _ := c.Answer.GetString("message")
	switch in.Dialect {
	case Claude:
		out.Stdout = encodeClaude(in, c, action, message, &out)
	case Cursor:
		out.Stdout = encodeCursor(in, c, action, message, &out)
	case Gemini:
		out.Stdout = encodeGemini(in, c, action, message, &out)
	case Codex:
		out.Stdout = encodeCodex(in, c, action, message, &out)
	}
	return out
}

// encodeClaude answers Claude Code (Hooks reference, "JSON output",
// "Decision control"). A stop directive is the common "continue": false with
// "stopReason", which Claude honours on every event and before any decision.
func encodeClaude(in Inbound, c protocol.Combined, action, message string, _ *Outbound) []byte {
	var top protocol.Object
	if stop, reason := combinedStop(c); stop {
		top = append(top, protocol.Field{Key: "continue", Value: protocol.Raw(false)})
		if reason != "" {
			top = append(top, protocol.Field{Key: "stopReason", Value: protocol.String(reason)})
		}
	}
	hso := protocol.Object{{Key: "hookEventName", Value: protocol.String(in.Name)}}
	switch in.Name {
	case "PreToolUse":
		switch action {
		case "block":
			hso = append(hso,
				protocol.Field{Key: "permissionDecision", Value: protocol.String("deny")},
				protocol.Field{Key: "permissionDecisionReason", Value: protocol.String(message)})
		case "approve":
			// Claude shows an ask's reason to the person, so their text
			// goes first.
			reason := message
			if u, ok := c.Answer.GetString("user_message"); ok && u != "" {
				reason = u
			}
			if reason == "" {
				reason = approvalMessage
			}
			hso = append(hso,
				protocol.Field{Key: "permissionDecision", Value: protocol.String("ask")},
				protocol.Field{Key: "permissionDecisionReason", Value: protocol.String(reason)})
			hso = appendUpdatedInput(in, c, hso)
		case "modify":
			// updatedInput without a decision: Claude applies it and asks
			// its permission question as usual, as Noora's modify means
			// (an "ask" would be refused outright in headless mode, -p).
			hso = appendUpdatedInput(in, c, hso)
		}
	case "PostToolUse", "PostToolUseFailure":
		if ctx, ok := c.Answer.GetString("context"); ok {
			hso = append(hso, protocol.Field{Key: "additionalContext", Value: protocol.String(ctx)})
		}
	case "UserPromptSubmit":
		if ctx, ok := c.Answer.GetString("context"); ok {
			hso = append(hso, protocol.Field{Key: "additionalContext", Value: protocol.String(ctx)})
		}
	case "Stop":
		if action == "continue" && top == nil {
			return line(protocol.Object{
				{Key: "decision", Value: protocol.String("block")},
				{Key: "reason", Value: protocol.String(message)},
			})
		}
	}
	if len(hso) > 1 {
		top = append(top, protocol.Field{Key: "hookSpecificOutput", Value: protocol.Raw(hso)})
	}
	if top == nil {
		return nil
	}
	return line(top)
}

// appendUpdatedInput adds the rewritten arguments, whole and in Claude's
// keys: Claude replaces the input with updatedInput.
func appendUpdatedInput(in Inbound, c protocol.Combined, hso protocol.Object) protocol.Object {
	args, ok := mergedArgs(c)
	if !ok {
		return hso
	}
	tool, _ := protocol.ToolName(in.Kwargs)
	_, input := ClaudeTool(tool, args)
	return append(hso, protocol.Field{Key: "updatedInput", Value: protocol.Raw(input)})
}

// combinedStop reads the stop directive of a combined answer (SPEC §8).
func combinedStop(c protocol.Combined) (bool, string) {
	v, ok := c.Answer.Get("stop")
	if !ok || gjson.ParseBytes(v).Type != gjson.True {
		return false, ""
	}
	reason, _ := c.Answer.GetString("stop_reason")
	return true, reason
}

// encodeCursor answers Cursor 1.7. Its permission answers carry two texts:
// user_message for the person and agent_message for the model; Noora's
// message is the model's, and a hook's user_message the person's.
func encodeCursor(in Inbound, c protocol.Combined, action, message string, out *Outbound) []byte {
	empty := []byte("{}\n")
	user, _ := c.Answer.GetString("user_message")
	permission := func(perm, agent, person string) []byte {
		if person == "" {
			person = agent
		}
		return line(protocol.Object{
			{Key: "permission", Value: protocol.String(perm)},
			{Key: "user_message", Value: protocol.String(person)},
			{Key: "agent_message", Value: protocol.String(agent)},
		})
	}
	stop, reason := combinedStop(c)
	if stop && in.Name != "beforeSubmitPrompt" && in.Name != "stop" {
		what := "the call is answered as Noora answered it"
		if action == "block" {
			what = "the call is denied"
		}
		out.Warnings = append(out.Warnings, fmt.Sprintf("a Noora hook stops the agent, which Cursor cannot do from %s; %s: %s", in.Name, what, shellhook.Excerpt(reason)))
	}
	switch in.Name {
	case "beforeShellExecution", "beforeMCPExecution", "beforeReadFile":
		readFile := in.Name == "beforeReadFile"
		switch action {
		case "block":
			return permission("deny", message, user)
		case "approve", "modify":
			msg := message
			if msg == "" {
				msg = approvalMessage
				if action == "modify" {
					msg = rewroteMessage
				}
			}
			if action == "modify" {
				out.Warnings = append(out.Warnings, "Cursor cannot take rewritten arguments ("+in.Name+"); asking instead")
			}
			if readFile {
				// beforeReadFile answers allow or deny only: what needs a
				// person's look is refused.
				const refused = " (Cursor cannot ask before reading a file, so the read is refused)"
				if user != "" {
					user += refused
				}
				return permission("deny", msg+refused, user)
			}
			return permission("ask", msg, user)
		}
	case "beforeSubmitPrompt":
		if ctx, ok := c.Answer.GetString("context"); ok && strings.TrimSpace(ctx) != "" {
			out.Warnings = append(out.Warnings, "Cursor cannot add context to a prompt (beforeSubmitPrompt); the pre_llm_call context was dropped: "+shellhook.Excerpt(ctx))
		}
		if stop {
			// "continue": false keeps the prompt from being sent.
			o := protocol.Object{{Key: "continue", Value: protocol.Raw(false)}}
			if reason != "" {
				o = append(o, protocol.Field{Key: "user_message", Value: protocol.String(reason)})
			}
			return line(o)
		}
	case "afterShellExecution", "afterMCPExecution", "afterFileEdit":
		if ctx, ok := c.Answer.GetString("context"); ok && strings.TrimSpace(ctx) != "" {
			out.Warnings = append(out.Warnings, "Cursor cannot give the model context after a tool ran ("+in.Name+"); the post_tool_call context was dropped: "+shellhook.Excerpt(ctx))
		}
	case "stop":
		// A stop directive is what stop does anyway: no follow-up.
		if action == "continue" && !stop {
			return line(protocol.Object{{Key: "followup_message", Value: protocol.String(message)}})
		}
	}
	return empty
}

// mergedArgs is the rewritten arguments of a pre_tool_call answer.
func mergedArgs(c protocol.Combined) (protocol.Object, bool) {
	raw, ok := c.Answer.Get("args")
	if !ok {
		return nil, false
	}
	obj, err := protocol.ParseObject(raw)
	return obj, err == nil
}

func line(o protocol.Object) []byte {
	b, _ := o.MarshalJSON()
	return append(b, '\n')
}
