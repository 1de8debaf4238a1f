package compat

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/noora-hooks/noora-hooks/internal/lazy"
	"github.com/noora-hooks/noora-hooks/protocol"
)

// ToolRule maps one Noora tool to one Claude Code tool, both ways. Keys it
// does not name pass through unchanged, so nothing a caller sent is lost.
type ToolRule struct {
	Noora, Claude string
	// Implied are Noora arguments the Claude tool stands for (Glob is
	// search_files with target "files"): added on the way to Noora when
	// missing, dropped on the way to Claude when equal.
	Implied protocol.Object
	// Picks chooses among rules that share a Noora tool, by its arguments;
	// nil: always.
	Picks func(args protocol.Object) bool
	Keys  []KeyRule
	// ClaudeResult and NooraResult convert the tool's result (results.go):
	// Noora's result object, with the call's arguments in Noora's keys, to
	// Claude's tool_response, and back. ok=false, or nil: the result is not
	// in the shape they know, and passes through as it is.
	ClaudeResult func(result gjson.Result, args protocol.Object) (response protocol.Object, ok bool)
	NooraResult  func(response gjson.Result) (result protocol.Object, ok bool)
}

// KeyRule renames one tool_input key, converting its value where the two
// tools disagree on units or shapes. A converter returning ok=false leaves
// that key as it was (name and value).
type KeyRule struct {
	Noora, Claude string
	ToClaude      func(v gjson.Result) (json.RawMessage, bool)
	ToNoora       func(v gjson.Result) (json.RawMessage, bool)
	// NooraDefault and ClaudeDefault are what each tool takes when the key
	// is missing, where the two differ: a call without it gets the key on
	// the other side, so that it means the same there.
	NooraDefault, ClaudeDefault json.RawMessage
}

// claudeTools: Noora's tools (the Noora agent's tool schemas) and Claude
// Code's (its tool_input schemas, February 2026). A Noora tool shared by
// several rules maps to the first whose Picks accepts its arguments.
var claudeTools = []ToolRule{
	{Noora: "terminal", Claude: "Bash", Keys: []KeyRule{
		// Noora's terminal timeout is in seconds, Bash's in milliseconds.
		{Noora: "timeout", Claude: "timeout", ToClaude: scale(1000), ToNoora: scale(0.001)},
		{Noora: "background", Claude: "run_in_background"},
	}, ClaudeResult: bashResponse, NooraResult: terminalResult},
	{Noora: "read_file", Claude: "Read", Keys: []KeyRule{{Noora: "path", Claude: "file_path"}},
		ClaudeResult: readResponse, NooraResult: readFileResult},
	{Noora: "write_file", Claude: "Write", Keys: []KeyRule{{Noora: "path", Claude: "file_path"}},
		ClaudeResult: writeResponse, NooraResult: writeFileResult},
	// MultiEdit is no tool of Claude Code 2.1.332 any more: its results,
	// whose shape cannot be checked, pass through.
	{Noora: "patch", Claude: "MultiEdit", Implied: object("mode", `"replace"`),
		Picks: func(args protocol.Object) bool { _, ok := args.Get("edits"); return ok },
		Keys:  []KeyRule{{Noora: "path", Claude: "file_path"}}},
	{Noora: "patch", Claude: "Edit", Implied: object("mode", `"replace"`),
		Keys:         []KeyRule{{Noora: "path", Claude: "file_path"}},
		ClaudeResult: editResponse, NooraResult: patchResult},
	{Noora: "search_files", Claude: "Glob", Implied: object("target", `"files"`),
		Picks:        func(args protocol.Object) bool { return argString(args, "target") == "files" },
		ClaudeResult: globResponse, NooraResult: filesSearchResult},
	{Noora: "search_files", Claude: "Grep", Implied: object("target", `"content"`), Keys: []KeyRule{
		{Noora: "file_glob", Claude: "glob"},
		{Noora: "context", Claude: "-C"},
		{Noora: "limit", Claude: "head_limit"},
		// Noora's search shows the matching lines by default
		// (search_files in hermes-agent's tools/file_tools.py), Claude's
		// Grep the files that match (its input schema).
		{Noora: "output_mode", Claude: "output_mode",
			ToClaude:     renameValue("files_only", "files_with_matches"),
			ToNoora:      renameValue("files_with_matches", "files_only"),
			NooraDefault: json.RawMessage(`"content"`), ClaudeDefault: json.RawMessage(`"files_with_matches"`)},
	}, ClaudeResult: grepResponse, NooraResult: contentSearchResult},
	{Noora: "web_search", Claude: "WebSearch", ClaudeResult: webSearchResponse, NooraResult: webSearchResult},
	{Noora: "web_extract", Claude: "WebFetch", Keys: []KeyRule{
		// Noora extracts a list of pages, WebFetch one.
		{Noora: "urls", Claude: "url", ToClaude: onlyElement, ToNoora: oneElementList},
	}, ClaudeResult: webFetchResponse, NooraResult: webExtractResult},
	// Results pass through: the shape of delegate_task's is not pinned down
	// (results.go).
	// Claude Code 2.1.63 renamed Task to Agent (its payloads say Agent, and
	// a matcher "Task" matches nothing there); a Task call of an older
	// version is still read as delegate_task.
	{Noora: "delegate_task", Claude: "Agent", Keys: []KeyRule{{Noora: "goal", Claude: "prompt"}}},
	{Noora: "delegate_task", Claude: "Task", Keys: []KeyRule{{Noora: "goal", Claude: "prompt"}}},
}

// ClaudeTool names a Noora tool call the way Claude Code would, with its
// arguments in Claude's keys. A tool Claude has no counterpart for keeps its
// name and arguments.
func ClaudeTool(tool string, args protocol.Object) (string, protocol.Object) {
	if name, ok := claudeMCPName(tool); ok {
		return name, args
	}
	if r := claudeRule(tool, args); r != nil {
		return r.Claude, r.toClaude(args)
	}
	return tool, args
}

// claudeRule is the rule for a call of the Noora tool with args; nil: none.
func claudeRule(tool string, args protocol.Object) *ToolRule {
	for i := range claudeTools {
		r := &claudeTools[i]
		if r.Noora == tool && (r.Picks == nil || r.Picks(args)) {
			return r
		}
	}
	return nil
}

// nooraRule is the rule for the Claude tool; nil: none.
func nooraRule(claudeTool string) *ToolRule {
	for i := range claudeTools {
		if claudeTools[i].Claude == claudeTool {
			return &claudeTools[i]
		}
	}
	return nil
}

// NooraTool names a Claude Code tool call the way Noora would, with its
// arguments in Noora's keys.
func NooraTool(tool string, input protocol.Object) (string, protocol.Object) {
	if name, ok := nooraMCPName(tool); ok {
		return name, input
	}
	if r := nooraRule(tool); r != nil {
		return r.Noora, r.toNoora(input)
	}
	return tool, input
}

// ClaudeToolName is ClaudeTool for matching, where only the name counts.
func ClaudeToolName(tool string, args protocol.Object) string {
	name, _ := ClaudeTool(tool, args)
	return name
}

func (r *ToolRule) toClaude(args protocol.Object) protocol.Object {
	if args == nil {
		return nil
	}
	out := make(protocol.Object, 0, len(args))
	for _, f := range args {
		if implied, ok := r.Implied.Get(f.Key); ok && sameJSON(implied, f.Value) {
			continue
		}
		out = out.With(r.mapKey(f, true))
	}
	return r.withDefaults(out, args, true)
}

func (r *ToolRule) toNoora(input protocol.Object) protocol.Object {
	if input == nil {
		return nil
	}
	out := make(protocol.Object, 0, len(input)+len(r.Implied))
	for _, f := range r.Implied {
		if _, ok := input.Get(f.Key); !ok {
			out = append(out, f)
		}
	}
	out = append(out, r.renameToNoora(input)...)
	return r.withDefaults(out, input, false)
}

// renameToNoora maps Claude's keys to Noora's without adding the implied
// arguments: for an answer that rewrites some of a call's arguments, where
// adding them would overwrite what the call had.
func (r *ToolRule) renameToNoora(input protocol.Object) protocol.Object {
	out := make(protocol.Object, 0, len(input))
	for _, f := range input {
		out = out.With(r.mapKey(f, false))
	}
	return out
}

// side is one direction of a key rule: the key it reads, the key it writes,
// the converter between them, and the default of the side it reads.
func (k *KeyRule) side(toClaude bool) (from, to string, conv func(gjson.Result) (json.RawMessage, bool), def json.RawMessage) {
	if toClaude {
		return k.Noora, k.Claude, k.ToClaude, k.NooraDefault
	}
	return k.Claude, k.Noora, k.ToNoora, k.ClaudeDefault
}

// mapKey is field f on the other side: renamed and converted by the key
// rule that names it; as it is when none does, or its converter declines.
func (r *ToolRule) mapKey(f protocol.Field, toClaude bool) (string, json.RawMessage) {
	for i := range r.Keys {
		from, to, conv, _ := r.Keys[i].side(toClaude)
		if from != f.Key {
			continue
		}
		if conv == nil {
			return to, f.Value
		}
		if v, ok := conv(gjson.ParseBytes(f.Value)); ok {
			return to, v
		}
		break
	}
	return f.Key, f.Value
}

// withDefaults adds to out, for each key with a default that the call in
// does not have, the other side's word for that default.
func (r *ToolRule) withDefaults(out, in protocol.Object, toClaude bool) protocol.Object {
	for i := range r.Keys {
		from, _, _, def := r.Keys[i].side(toClaude)
		if _, ok := in.Get(from); !ok && def != nil {
			out = out.With(r.mapKey(protocol.Field{Key: from, Value: def}, toClaude))
		}
	}
	return out
}

// MCP tools. Claude Code names them mcp__<server>__<tool>; the Noora agent
// names them mcp_<server>_<tool>, with anything but [A-Za-z0-9_] in either
// part replaced by "_". Going back, a server name that itself holds "_"
// cannot be told from the tool name: the first "_" ends the server.
var claudeMCP = lazy.Regexp(`^mcp__(.+?)__(.+)$`)

func nooraMCPName(tool string) (string, bool) {
	m := claudeMCP().FindStringSubmatch(tool)
	if m == nil {
		return "", false
	}
	return "mcp_" + sanitizeMCP(m[1]) + "_" + sanitizeMCP(m[2]), true
}

func claudeMCPName(tool string) (string, bool) {
	if strings.HasPrefix(tool, "mcp__") {
		return tool, true
	}
	rest, ok := strings.CutPrefix(tool, "mcp_")
	if !ok {
		return "", false
	}
	server, name, ok := strings.Cut(rest, "_")
	if !ok || server == "" || name == "" {
		return "", false
	}
	return "mcp__" + server + "__" + name, true
}

func sanitizeMCP(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_':
			return r
		}
		return '_'
	}, s)
}

// Cursor names an MCP tool by the server's own name for it and says nothing
// of the server; Noora's name is that with "mcp_" in front.
func nooraCursorMCPName(tool string) string {
	if strings.HasPrefix(tool, "mcp_") {
		return tool
	}
	return "mcp_" + tool
}

func cursorMCPName(tool string) string { return strings.TrimPrefix(tool, "mcp_") }

// Value converters.

func scale(factor float64) func(gjson.Result) (json.RawMessage, bool) {
	return func(v gjson.Result) (json.RawMessage, bool) {
		if v.Type != gjson.Number {
			return nil, false
		}
		return number(v.Float() * factor), true
	}
}

// number encodes f as an integer when it is one.
func number(f float64) json.RawMessage {
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return json.RawMessage(strconv.FormatInt(int64(f), 10))
	}
	return json.RawMessage(strconv.FormatFloat(f, 'g', -1, 64))
}

func renameValue(from, to string) func(gjson.Result) (json.RawMessage, bool) {
	return func(v gjson.Result) (json.RawMessage, bool) {
		if v.Type == gjson.String && v.String() == from {
			return protocol.String(to), true
		}
		return json.RawMessage(v.Raw), true
	}
}

// onlyElement turns a one-element list into its element; longer lists stay
// as they are, under their own key.
func onlyElement(v gjson.Result) (json.RawMessage, bool) {
	if !v.IsArray() {
		return json.RawMessage(v.Raw), v.Type == gjson.String
	}
	items := v.Array()
	if len(items) != 1 {
		return nil, false
	}
	return json.RawMessage(items[0].Raw), true
}

func oneElementList(v gjson.Result) (json.RawMessage, bool) {
	return json.RawMessage("[" + v.Raw + "]"), true
}

func object(key, rawValue string) protocol.Object {
	return protocol.Object{{Key: key, Value: json.RawMessage(rawValue)}}
}

func argString(args protocol.Object, key string) string {
	s, _ := args.GetString(key)
	return s
}

// sameJSON compares two JSON values by meaning for scalars, by text otherwise.
func sameJSON(a, b json.RawMessage) bool {
	ra, rb := gjson.ParseBytes(a), gjson.ParseBytes(b)
	if ra.Type != rb.Type {
		return false
	}
	switch ra.Type {
	case gjson.String:
		return ra.String() == rb.String()
	case gjson.Number:
		return ra.Float() == rb.Float()
	}
	return strings.TrimSpace(ra.Raw) == strings.TrimSpace(rb.Raw)
}
