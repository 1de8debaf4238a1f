package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"

	"github.com/tidwall/gjson"
)

// Kind names what one hook's answer asks for.
type Kind int

const (
	// None: no answer; the hook only observed.
	None Kind = iota
	// Block stops a tool call (pre_tool_call).
	Block
	// Approve lets a tool call through without the agent's own approval prompt.
	Approve
	// Modify rewrites a tool call's arguments.
	Modify
	// Context adds text to the next model call (pre_llm_call).
	Context
	// Continue keeps the agent going at the verify gate (pre_verify).
	Continue
	// Replace is a transform's new value.
	Replace
	// Fields is an object answer: pre_transcription fields, a gateway
	// dispatch action, an API error classification.
	Fields
)

var kindNames = [...]string{"none", "block", "approve", "modify", "context", "continue", "replace", "fields"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// DefaultBlockMessage is the message of a block that gave none (SPEC §4).
const DefaultBlockMessage = "Blocked by shell hook."

// Answer is what one hook asked for, already read by the rules of its event.
type Answer struct {
	Kind    Kind
	Message string // Block, Approve, Continue
	RuleKey string // Approve
	Args    Object // Modify; Approve when the hook also rewrote args
	Text    string // Context, Replace
	Fields  Object // Fields
	// UserMessage is the text for the person, when the hook wrote one apart
	// from Message, which is for the agent (Cursor's user_message and
	// agent_message): Block, Approve.
	UserMessage string
	// Stop asks the agent to end its turn and hand over to the person
	// (SPEC §4, "stop"; a dialect hook's "continue": false), whatever Kind
	// says; StopReason, for the person, says why.
	Stop       bool
	StopReason string
}

// MarshalJSON gives the compact form used in traces.
func (a Answer) MarshalJSON() ([]byte, error) {
	if a.Kind == None && !a.Stop {
		return []byte("null"), nil
	}
	o := Object{{Key: "kind", Value: String(a.Kind.String())}}
	if a.Stop {
		o = append(o, Field{Key: "stop", Value: Raw(true)}, Field{Key: "stop_reason", Value: String(a.StopReason)})
	}
	if a.Message != "" {
		o = append(o, Field{Key: "message", Value: String(a.Message)})
	}
	if a.UserMessage != "" {
		o = append(o, Field{Key: "user_message", Value: String(a.UserMessage)})
	}
	if a.RuleKey != "" {
		o = append(o, Field{Key: "rule_key", Value: String(a.RuleKey)})
	}
	if a.Args != nil {
		o = append(o, Field{Key: "args", Value: Raw(a.Args)})
	}
	if a.Kind == Context || a.Kind == Replace {
		o = append(o, Field{Key: "text", Value: String(a.Text)})
	}
	if a.Fields != nil {
		o = append(o, Field{Key: "fields", Value: Raw(a.Fields)})
	}
	return o.MarshalJSON()
}

// ErrInvalidJSON marks hook output that is not one JSON value.
var ErrInvalidJSON = errors.New("output is not valid JSON")

// Parse reads a hook's stdout as one JSON value. Empty (after trimming) means no
// answer and returns ok=false with no error. An answer nesting deeper than
// MaxDepth is an error wrapping ErrTooDeep.
func Parse(stdout []byte) (v gjson.Result, ok bool, err error) {
	stdout = bytes.TrimSpace(stdout)
	if len(stdout) == 0 {
		return gjson.Result{}, false, nil
	}
	if err := CheckDepth(stdout); err != nil {
		return gjson.Result{}, false, err
	}
	if !gjson.ValidBytes(stdout) {
		return gjson.Result{}, false, ErrInvalidJSON
	}
	return gjson.ParseBytes(stdout), true, nil
}

// Read interprets one JSON answer by the rules of event (the table of SPEC §4).
// Shapes that mean nothing for the event give an answer of kind None. A stop
// directive is read on every event.
func Read(event string, v gjson.Result) Answer {
	a := readUserMessage(readEvent(event, v), v)
	a.Stop, a.StopReason = ReadStop(v)
	return a
}

func readEvent(event string, v gjson.Result) Answer {
	switch event {
	case PreToolCall:
		return readToolDirective(v)
	case PreLLMCall, PostToolCall:
		return readContext(v)
	case PreVerify:
		return readContinue(v)
	case PreGatewayDispatch:
		return readGatewayAction(v)
	case TransformToolResult, TransformTerminalOutput, TransformLLMOutput:
		if v.Type == gjson.String {
			return Answer{Kind: Replace, Text: v.String()}
		}
	case PreTranscription:
		if v.IsObject() {
			return Answer{Kind: Fields, Fields: objectOf(v)}
		}
	case TransformAPIErrorClassification:
		if v.IsObject() && member(v, "reason").Type == gjson.String {
			return Answer{Kind: Fields, Fields: objectOf(v)}
		}
	}
	return Answer{}
}

// member reads a top-level key without gjson's path syntax getting in the way.
// A key given twice reads its last value, as Python's json module keeps it:
// gjson alone would read the first, and {"action":"allow","action":"block"}
// blocks in the agent.
func member(v gjson.Result, key string) gjson.Result {
	var out gjson.Result
	if !v.IsObject() {
		return out
	}
	v.ForEach(func(k, val gjson.Result) bool {
		if k.Str == key {
			out = val
		}
		return true
	})
	return out
}

// str returns the value as a string when it is one.
func str(v gjson.Result) (string, bool) {
	if v.Type != gjson.String {
		return "", false
	}
	return v.String(), true
}

// nonBlank returns the first candidate that is a string with non-space content.
func nonBlank(candidates ...gjson.Result) (string, bool) {
	for _, c := range candidates {
		if s, ok := str(c); ok && PyStrip(s) != "" {
			return s, true
		}
	}
	return "", false
}

func blockWith(candidates ...gjson.Result) Answer {
	msg, ok := nonBlank(candidates...)
	if !ok {
		msg = DefaultBlockMessage
	}
	return Answer{Kind: Block, Message: msg}
}

// readToolDirective mirrors the agent's shell-hook reader for pre_tool_call
// (agent/shell_hooks.py _parse_pre_tool_call): a block in either dialect
// first, Noora's before Claude's; then a modify, Noora's form before Claude's
// even when both verbs are given; then an approve. Only where the agent finds
// nothing are the Claude Code and Cursor permission shapes read.
func readToolDirective(v gjson.Result) Answer {
	if !v.IsObject() {
		return Answer{}
	}
	action, decision := member(v, "action"), member(v, "decision")
	switch {
	case isString(action, "block"):
		return Answer{Kind: Block, Message: blockMessage(member(v, "message"), member(v, "reason"))}
	case isString(decision, "block"):
		return Answer{Kind: Block, Message: blockMessage(member(v, "reason"), member(v, "message"))}
	}
	if args := member(v, "args"); isString(action, "modify") && args.IsObject() {
		return Answer{Kind: Modify, Args: objectOf(args)}
	}
	if args := member(v, "tool_input"); isString(decision, "modify") && args.IsObject() {
		return Answer{Kind: Modify, Args: objectOf(args)}
	}
	if isString(action, "approve") {
		// Both optional; the agent strips them and drops what is blank.
		a := Answer{Kind: Approve}
		a.Message = strippedString(member(v, "message"))
		a.RuleKey = strippedString(member(v, "rule_key"))
		return a
	}
	// Claude Code: {"hookSpecificOutput": {"permissionDecision": ...}}.
	if hso := member(v, "hookSpecificOutput"); hso.IsObject() {
		if a := readClaudePermission(hso); a.Kind != None {
			return a
		}
	}
	// Cursor: {"permission": "deny"|"ask"|"allow", ...}.
	if perm, ok := str(member(v, "permission")); ok {
		if a := readCursorPermission(v, perm); a.Kind != None {
			return a
		}
	}
	return Answer{}
}

// blockMessage is the agent's _block_message: `primary or secondary` by
// Python truthiness, used when it is a non-empty string (blank included),
// else the default. A truthy non-string primary (42) hides the secondary.
func blockMessage(primary, secondary gjson.Result) string {
	if raw := pyOr(primary, secondary); raw.Type == gjson.String && raw.Str != "" {
		return raw.Str
	}
	return DefaultBlockMessage
}

// strippedString is v stripped as Python's str.strip() does, or "" when v is
// not a string.
func strippedString(v gjson.Result) string {
	if v.Type != gjson.String {
		return ""
	}
	return PyStrip(v.Str)
}

func readClaudePermission(hso gjson.Result) Answer {
	decision, _ := str(member(hso, "permissionDecision"))
	reason := member(hso, "permissionDecisionReason")
	switch decision {
	case "deny":
		return blockWith(reason)
	case "ask":
		a := Answer{Kind: Approve}
		a.Message, _ = str(reason)
		if in := member(hso, "updatedInput"); in.IsObject() {
			a.Args = objectOf(in) // the rewrite travels with the ask, as with dialect: claude
		}
		return a
	}
	if in := member(hso, "updatedInput"); in.IsObject() {
		return Answer{Kind: Modify, Args: objectOf(in)}
	}
	return Answer{} // "allow", or nothing we act on
}

func readCursorPermission(v gjson.Result, perm string) Answer {
	agent := firstPresent(v, "agent_message", "agentMessage")
	user := firstPresent(v, "user_message", "userMessage")
	var a Answer
	switch perm {
	case "deny":
		a = blockWith(agent, user)
	case "ask":
		a = Answer{Kind: Approve}
		a.Message, _ = nonBlank(agent, user)
	default:
		return Answer{}
	}
	// The person's text is kept apart only when it differs from the agent's.
	if u, ok := nonBlank(user); ok && u != a.Message {
		a.UserMessage = u
	}
	return a
}

// firstPresent returns the first of keys that v has.
func firstPresent(v gjson.Result, keys ...string) gjson.Result {
	for _, k := range keys {
		if r := member(v, k); r.Exists() {
			return r
		}
	}
	return gjson.Result{}
}

func readContext(v gjson.Result) Answer {
	// A plain string is context too: the plugin guide's callbacks may return one.
	if s, ok := str(v); ok {
		return contextAnswer(s)
	}
	if !v.IsObject() {
		return Answer{}
	}
	if s, ok := str(member(v, "context")); ok {
		return contextAnswer(s)
	}
	if hso := member(v, "hookSpecificOutput"); hso.IsObject() {
		if s, ok := str(member(hso, "additionalContext")); ok {
			return contextAnswer(s)
		}
	}
	return Answer{}
}

func contextAnswer(s string) Answer {
	if PyStrip(s) == "" {
		return Answer{}
	}
	return Answer{Kind: Context, Text: s}
}

// readContinue mirrors the agent's pre_verify reader (agent/shell_hooks.py
// _parse_pre_verify): the verb is `action or decision` by Python truthiness,
// stripped and lower-cased; "continue" (Noora) and "block" (Claude Code's
// Stop) both keep the agent going. The message is `message or reason`, and
// must be a string with something besides blanks; it is stripped.
func readContinue(v gjson.Result) Answer {
	if !v.IsObject() {
		return Answer{}
	}
	verb := pyOr(member(v, "action"), member(v, "decision"))
	if verb.Type != gjson.String {
		// str() of a number, a boolean or a container never reads as
		// either verb.
		return Answer{}
	}
	switch strings.ToLower(PyStrip(verb.Str)) {
	case "continue", "block":
	default:
		return Answer{}
	}
	msg := pyOr(member(v, "message"), member(v, "reason"))
	if msg.Type != gjson.String || PyStrip(msg.Str) == "" {
		return Answer{}
	}
	return Answer{Kind: Continue, Message: PyStrip(msg.Str)}
}

func readGatewayAction(v gjson.Result) Answer {
	if !v.IsObject() {
		return Answer{}
	}
	action, _ := str(member(v, "action"))
	out := Object{{Key: "action", Value: String(action)}}
	switch action {
	case "skip":
		if reason, ok := str(member(v, "reason")); ok {
			out = append(out, Field{Key: "reason", Value: String(reason)})
		}
	case "rewrite":
		text, ok := str(member(v, "text"))
		if !ok {
			return Answer{}
		}
		out = append(out, Field{Key: "text", Value: String(text)})
	case "allow":
	default:
		return Answer{}
	}
	return Answer{Kind: Fields, Fields: out}
}

// rawString decodes a JSON string value; ok is false for anything else.
func rawString(raw json.RawMessage) (string, bool) {
	return str(gjson.ParseBytes(raw))
}
