package protocol

import (
	"strings"

	"github.com/tidwall/gjson"
)

// DefaultStopReason is the stop_reason of a combined answer whose hooks
// asked to stop the agent without saying why.
const DefaultStopReason = "Stopped by a hook."

// ReadStop reads the stop directive of an answer, on any event (SPEC §4):
// Noora's {"stop": true, "stop_reason": "..."}, or Claude Code's
// {"continue": false, "stopReason": "..."}. The reason is for the person the
// agent hands over to.
func ReadStop(v gjson.Result) (stop bool, reason string) {
	if !v.IsObject() {
		return false, ""
	}
	switch {
	case member(v, "stop").Type == gjson.True:
		reason, _ = nonBlank(member(v, "stop_reason"), member(v, "stopReason"))
	case member(v, "continue").Type == gjson.False:
		reason, _ = nonBlank(member(v, "stopReason"), member(v, "stop_reason"))
	default:
		return false, ""
	}
	return true, reason
}

// readUserMessage keeps a block's or an approval's text for the person when
// the hook wrote one apart from the message for the agent.
func readUserMessage(a Answer, v gjson.Result) Answer {
	if (a.Kind != Block && a.Kind != Approve) || a.UserMessage != "" || !v.IsObject() {
		return a
	}
	if u, ok := nonBlank(member(v, "user_message"), member(v, "userMessage")); ok && u != a.Message {
		a.UserMessage = u
	}
	return a
}

// combineStop adds `"stop": true, "stop_reason": "..."` to a combined answer
// when any hook asked to stop the agent (SPEC §8). Any event can carry it,
// whatever else its answer says. The reason is the first non-blank one among
// the stops, in source order, else DefaultStopReason. Before a tool call, a
// stop also blocks the call (message: the reason a hook gave, else
// DefaultBlockMessage) unless a block came first, so that a caller that knows
// nothing of "stop" still does not run the tool.
func combineStop(event string, answer Object, answers []Answer) Object {
	stop, reason := false, ""
	for _, a := range answers {
		if !a.Stop {
			continue
		}
		stop = true
		if reason == "" && PyStrip(a.StopReason) != "" {
			reason = a.StopReason
		}
	}
	if !stop {
		return answer
	}
	if event == PreToolCall {
		if action, _ := rawString(valueOf(answer, "action")); action != "block" {
			msg := reason
			if msg == "" {
				msg = DefaultBlockMessage
			}
			answer = Object{
				{Key: "action", Value: String("block")},
				{Key: "message", Value: String(msg)},
			}
		}
	}
	if reason == "" {
		reason = DefaultStopReason
	}
	return append(answer,
		Field{Key: "stop", Value: Raw(true)},
		Field{Key: "stop_reason", Value: String(reason)},
	)
}

// combineContext joins every non-blank context, in order: pre_llm_call's
// context, and on post_tool_call the text hooks give the model about the
// call that just ran (Claude's, Gemini's and Codex's additionalContext).
func combineContext(answers []Answer) Object {
	var parts []string
	for _, a := range answers {
		if a.Kind == Context && PyStrip(a.Text) != "" {
			parts = append(parts, a.Text)
		}
	}
	if len(parts) == 0 {
		return nil
	}
	return Object{{Key: "context", Value: String(strings.Join(parts, "\n\n"))}}
}

func valueOf(o Object, key string) []byte {
	v, _ := o.Get(key)
	return v
}

// UnreadContext is the warning for context that hooks gave after a tool call
// when nothing delivers it: the Noora agent reads no answer of post_tool_call
// (an observer, SPEC §3). Bridges (`exec --dialect`) deliver it instead.
func UnreadContext(c Combined) string {
	if c.Event != PostToolCall {
		return ""
	}
	v, ok := c.Answer.Get("context")
	if !ok {
		return ""
	}
	text, _ := rawString(v)
	if len([]rune(text)) > 400 {
		text = string([]rune(text)[:400])
	}
	return "post_tool_call: hooks gave the model context about the call (" + text + "); it is in the answer as \"context\", but the Noora agent reads no answer of post_tool_call, so it does not reach the model: a transform_tool_result hook can append it to the result, and exec --dialect claude (or gemini, codex) delivers it to that agent"
}
