package compat

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/noora-hooks/noora-hooks/internal/dispatch"
	"github.com/noora-hooks/noora-hooks/internal/lazy"
	"github.com/noora-hooks/noora-hooks/internal/runner"
	"github.com/noora-hooks/noora-hooks/internal/shellhook"

	"github.com/tidwall/gjson"

	"github.com/noora-hooks/noora-hooks/protocol"
)

// Gemini CLI: its hooks reference as shipped with @google/gemini-cli 0.61.0
// (bundle/docs/hooks/reference.md, bundle/docs/tools/*.md), checked against
// what that version does (docs/compat.md): where the two differ, the
// observed behaviour wins (tool_input replaces the arguments rather than
// merging; any exit code but 0 and 1 blocks when the hook printed
// something; stderr is read when stdout is empty).

// geminiEvents: Gemini CLI's hook events, in the order its reference lists
// them.
var geminiEvents = []Event{
	{Name: "SessionStart", Noora: "on_session_start", Matcher: "source", Default: true},
	{Name: "BeforeAgent", Noora: protocol.PreLLMCall, Default: true},
	{Name: "BeforeModel", Noora: "pre_api_request", Default: true},
	{Name: "AfterModel", Missing: "it fires for every streamed chunk of the response, and Noora has no event that sees or changes a response chunk"},
	{Name: "BeforeToolSelection", Missing: "Noora has no event that narrows the tools offered to the model"},
	{Name: "BeforeTool", Noora: protocol.PreToolCall, Matcher: "tool_name", Default: true},
	{Name: "AfterTool", Noora: protocol.PostToolCall, Matcher: "tool_name", Default: true},
	{Name: "AfterAgent", Noora: protocol.PreVerify, Default: true},
	{Name: "PreCompress", Missing: "Noora has no event before context compression"},
	{Name: "Notification", Noora: "pre_approval_request", Matcher: "notification_type", Default: true},
	{Name: "SessionEnd", Noora: "on_session_end", Matcher: "reason", Default: true},
}

// geminiTools: Noora's tools and Gemini CLI's built-in ones (the ToolRule's
// Claude field holds the Gemini name). MCP tools need no rule: both name
// them mcp_<server>_<tool>.
var geminiTools = []ToolRule{
	{Noora: "terminal", Claude: "run_shell_command", Keys: []KeyRule{
		{Noora: "workdir", Claude: "dir_path"},
		{Noora: "background", Claude: "is_background"},
	}},
	{Noora: "read_file", Claude: "read_file", Keys: []KeyRule{
		{Noora: "path", Claude: "file_path"},
		// Noora counts lines from 1, Gemini from 0.
		{Noora: "offset", Claude: "offset", ToClaude: shift(-1), ToNoora: shift(1)},
	}},
	{Noora: "write_file", Claude: "write_file", Keys: []KeyRule{{Noora: "path", Claude: "file_path"}}},
	{Noora: "patch", Claude: "replace", Implied: object("mode", `"replace"`),
		Picks: func(args protocol.Object) bool { m := argString(args, "mode"); return m == "" || m == "replace" },
		Keys: []KeyRule{
			{Noora: "path", Claude: "file_path"},
			{Noora: "replace_all", Claude: "allow_multiple"},
		}},
	{Noora: "search_files", Claude: "glob", Implied: object("target", `"files"`),
		Picks: func(args protocol.Object) bool { return argString(args, "target") == "files" }},
	{Noora: "search_files", Claude: "grep_search", Implied: object("target", `"content"`), Keys: []KeyRule{
		{Noora: "file_glob", Claude: "include"},
	}},
	{Noora: "web_search", Claude: "google_web_search"},
	{Noora: "web_extract", Claude: "web_fetch", Keys: []KeyRule{
		// web_fetch takes a prompt that names the URLs.
		{Noora: "urls", Claude: "prompt", ToClaude: urlsToPrompt, ToNoora: promptToURLs},
	}},
}

// GeminiTool names a Noora tool call the way Gemini CLI would, with its
// arguments in Gemini's keys.
func GeminiTool(tool string, args protocol.Object) (string, protocol.Object) {
	for i := range geminiTools {
		r := &geminiTools[i]
		if r.Noora == tool && (r.Picks == nil || r.Picks(args)) {
			return r.Claude, r.toClaude(args)
		}
	}
	return tool, args
}

// NooraGeminiTool names a Gemini CLI tool call the way Noora would.
func NooraGeminiTool(tool string, input protocol.Object) (string, protocol.Object) {
	for i := range geminiTools {
		if r := &geminiTools[i]; r.Claude == tool {
			return r.Noora, r.toNoora(input)
		}
	}
	return tool, input
}

func shift(by float64) func(gjson.Result) (json.RawMessage, bool) {
	return func(v gjson.Result) (json.RawMessage, bool) {
		if v.Type != gjson.Number {
			return nil, false
		}
		return number(max(v.Float()+by, 0)), true
	}
}

var urlPattern = lazy.Regexp(`https?://[^\s"'<>]+`)

func urlsToPrompt(v gjson.Result) (json.RawMessage, bool) {
	if !v.IsArray() {
		return nil, false
	}
	var urls []string
	for _, u := range v.Array() {
		if u.Type != gjson.String {
			return nil, false
		}
		urls = append(urls, u.String())
	}
	return protocol.String(strings.Join(urls, "\n")), true
}

func promptToURLs(v gjson.Result) (json.RawMessage, bool) {
	urls := urlPattern().FindAllString(v.String(), -1)
	if v.Type != gjson.String || len(urls) == 0 {
		return nil, false
	}
	return protocol.Raw(urls), true
}

// geminiDialect runs hooks written for Gemini CLI: its payload, its
// environment, its matcher rules (a regular expression on tool names, exact
// strings elsewhere) and its answer rules.
var geminiDialect = dialect{tool: Gemini, projectVar: "GEMINI_PROJECT_DIR",
	payload: geminiPayload, read: readGemini, env: geminiEnv, match: geminiMatch}

// geminiEnv: what Gemini CLI adds to a hook's environment (it also sets
// CLAUDE_PROJECT_DIR, for hooks written for Claude Code). GEMINI_PLANS_DIR
// names a directory of Gemini's own and is left out.
func geminiEnv(call dispatch.Call) []string {
	dir := projectDir(call.Env, "GEMINI_PROJECT_DIR", call.Cwd)
	session, _ := call.Kwargs.GetString("session_id")
	return []string{
		"GEMINI_PROJECT_DIR=" + dir,
		"GEMINI_CWD=" + call.Cwd,
		"GEMINI_SESSION_ID=" + session,
		"CLAUDE_PROJECT_DIR=" + dir,
	}
}

// geminiMatch: "" and "*" match everything; on tool events the matcher is a
// regular expression that may match anywhere in the tool name; elsewhere it
// is compared exactly with the source, reason or notification type.
func geminiMatch(ev *Event, pattern, subject string) bool {
	p := strings.TrimSpace(pattern)
	if p == "" || p == "*" {
		return true
	}
	if ev.Matcher != "tool_name" {
		return p == subject
	}
	return regexMatch(p, subject)
}

// regexMatch: a regular expression that may match anywhere; one Go cannot
// compile is compared literally.
func regexMatch(p, subject string) bool {
	re := compileMatcher(p)
	if re == nil {
		return p == subject
	}
	return re.MatchString(subject)
}

// geminiPayload is what Gemini CLI would send for call: session_id,
// transcript_path, cwd, hook_event_name, timestamp, then the event's own.
func geminiPayload(ev *Event, call dispatch.Call) protocol.Object {
	kw := call.Kwargs
	p := protocol.Object{
		{Key: "session_id", Value: sessionID(kw)},
		{Key: "transcript_path", Value: stringOr(kw, "", "transcript_path")},
		{Key: "cwd", Value: protocol.String(call.Cwd)},
		{Key: "hook_event_name", Value: protocol.String(ev.Name)},
		{Key: "timestamp", Value: protocol.String(time.Now().UTC().Format("2006-01-02T15:04:05.000Z"))},
	}
	add := func(key string, v json.RawMessage) { p = append(p, protocol.Field{Key: key, Value: v}) }
	switch ev.Name {
	case "BeforeTool", "AfterTool":
		tool, _ := protocol.ToolName(kw)
		args, _ := protocol.ToolArgs(kw)
		name, input := GeminiTool(tool, args)
		if input == nil {
			input = protocol.Object{}
		}
		add("tool_name", protocol.String(name))
		add("tool_input", protocol.Raw(input))
		if ev.Name == "AfterTool" {
			add("tool_response", geminiToolResponse(kw))
		}
	case "BeforeAgent":
		add("prompt", stringOr(kw, "", "user_message", "prompt"))
	case "AfterAgent":
		add("prompt", stringOr(kw, "", "user_message", "prompt"))
		add("prompt_response", stringOr(kw, "", "final_response", "prompt_response"))
		attempt := gjson.ParseBytes(raw(kw, "attempt")).Int()
		add("stop_hook_active", protocol.Raw(attempt > 0))
	case "BeforeModel":
		model, _ := kw.GetString("model")
		add("llm_request", protocol.Raw(protocol.Object{
			{Key: "model", Value: protocol.String(model)},
			{Key: "messages", Value: json.RawMessage("[]")},
			{Key: "config", Value: json.RawMessage("{}")},
		}))
	case "SessionStart":
		add("source", stringOr(kw, "startup", "source"))
	case "SessionEnd":
		add("reason", stringOr(kw, "exit", "reason"))
	case "Notification":
		command, _ := kw.GetString("command")
		msg, ok := kw.GetString("message")
		if !ok {
			msg = "Tool Confirm Shell Command requires execution"
		}
		root, _, _ := strings.Cut(strings.TrimSpace(command), " ")
		add("notification_type", stringOr(kw, "ToolPermission", "notification_type"))
		add("message", protocol.String(msg))
		add("details", protocol.Raw(protocol.Object{
			{Key: "type", Value: protocol.String("exec")},
			{Key: "title", Value: protocol.String("Confirm Shell Command")},
			{Key: "command", Value: protocol.String(command)},
			{Key: "rootCommand", Value: protocol.String(root)},
		}))
	}
	return p
}

// geminiToolResponse: Gemini hands AfterTool {llmContent, returnDisplay,
// error?}; Noora's result is one string.
func geminiToolResponse(kw protocol.Kwargs) json.RawMessage {
	result, _ := kw.GetString("result")
	resp := protocol.Object{
		{Key: "llmContent", Value: protocol.String(result)},
		{Key: "returnDisplay", Value: protocol.String(result)},
	}
	if toolFailed(kw) {
		msg := toolError(kw)
		resp = append(resp, protocol.Field{Key: "error", Value: protocol.Raw(protocol.Object{
			{Key: "message", Value: protocol.String(msg)},
		})})
	}
	return protocol.Raw(resp)
}

// readGemini reads an answer by Gemini CLI's rules (as observed on 0.61.0):
// the answer is stdout, or stderr when stdout is empty; exit 0 reads it as
// JSON (plain text is only shown to the user); exit 1 is a warning; any
// other exit blocks with the text, unless the text is JSON, which is read as
// on exit 0, and a silent exit blocks nothing.
func readGemini(ev *Event, call dispatch.Call, out runner.Outcome) shellhook.Reading {
	var r shellhook.Reading
	if out.StdoutTruncated {
		r.Unusable = true
		r.Warnings = append(r.Warnings, "stdout is over the bound and was cut; ignoring it")
		return r
	}
	text := strings.TrimSpace(string(out.Stdout))
	if text == "" {
		text = strings.TrimSpace(string(out.Stderr))
	}
	v, isObject := geminiJSON(text)
	switch {
	case out.Code == 1:
		r.Failed = true
		return r
	case out.Code != 0 && text == "":
		r.Failed = true
		r.Warnings = append(r.Warnings, "a silent non-zero exit blocks nothing in Gemini CLI; ignored")
		return r
	case out.Code != 0 && !isObject:
		return geminiDeny(ev, r, text)
	case text == "" || !isObject:
		return r // plain text on exit 0 is a message for the user
	}
	return readGeminiJSON(ev, call, v, out.Code != 0, text)
}

// geminiJSON parses an answer; a JSON string holding JSON is decoded again.
func geminiJSON(text string) (gjson.Result, bool) {
	if text == "" || !gjson.Valid(text) {
		return gjson.Result{}, false
	}
	v := gjson.Parse(text)
	if v.Type == gjson.String && gjson.Valid(v.String()) {
		v = gjson.Parse(v.String())
	}
	return v, v.IsObject()
}

// geminiDeny is decision "deny" (or a blocking exit) on ev.
func geminiDeny(ev *Event, r shellhook.Reading, reason string) shellhook.Reading {
	switch ev.Name {
	case "BeforeTool":
		r.Answer = protocol.Answer{Kind: protocol.Block, Message: orDefault(reason)}
	case "AfterAgent":
		if strings.TrimSpace(reason) != "" {
			r.Answer = protocol.Answer{Kind: protocol.Continue, Message: reason}
		} else {
			r.Warnings = append(r.Warnings, "decision: deny without a reason cannot keep the agent going (pre_verify needs a message); ignored")
		}
	case "AfterTool":
		r.Warnings = append(r.Warnings, noCounterpart(ev, "decision: deny replaces the tool's result with the reason", reason))
	case "BeforeAgent":
		r.Warnings = append(r.Warnings, noCounterpart(ev, "decision: deny discards the prompt", reason))
	case "BeforeModel":
		r.Warnings = append(r.Warnings, noCounterpart(ev, "decision: deny skips the model call", reason))
	}
	// Gemini ignores decisions on the other events.
	return r
}

func readGeminiJSON(ev *Event, call dispatch.Call, v gjson.Result, exited bool, text string) shellhook.Reading {
	var r shellhook.Reading
	get := protocol.Member
	hso := get(v, "hookSpecificOutput")
	if !hso.IsObject() {
		hso = gjson.Result{}
	}
	decision := strings.ToLower(get(v, "decision").String())
	reason := firstNonBlank(get(v, "reason"))
	switch {
	case decision == "deny" || decision == "block":
		r = geminiDeny(ev, r, reason)
	case exited && decision == "":
		// A blocking exit whose output is JSON without a decision blocks
		// with that output.
		r = geminiDeny(ev, r, firstNonBlank(get(v, "reason"), get(v, "systemMessage")))
		if r.Answer.Kind == protocol.Block && r.Answer.Message == protocol.DefaultBlockMessage {
			r.Answer.Message = shellhook.Excerpt(text)
		}
	}
	ctx := get(hso, "additionalContext")
	hasCtx := ctx.Type == gjson.String && strings.TrimSpace(ctx.String()) != ""
	switch ev.Name {
	case "BeforeTool":
		if r.Answer.Kind == protocol.Block {
			break
		}
		var updated protocol.Object
		if in := get(hso, "tool_input"); in.IsObject() {
			updated = geminiUpdate(call, in)
		}
		switch {
		case decision == "ask":
			r.Answer = protocol.Answer{Kind: protocol.Approve, Message: reason, Args: updated}
		case updated != nil:
			r.Answer = protocol.Answer{Kind: protocol.Modify, Args: updated}
		}
	case "AfterTool", "BeforeAgent":
		if hasCtx && r.Answer.Kind == protocol.None {
			r.Answer = protocol.Answer{Kind: protocol.Context, Text: ctx.String()}
		}
	case "SessionStart":
		if hasCtx {
			r.Warnings = append(r.Warnings, noCounterpart(ev, "context at session start reaches the model", ctx.String())+
				" (a pre_llm_call hook can add it on the first turn: is_first_turn)")
		}
	case "BeforeModel":
		for _, k := range []string{"llm_request", "llm_response"} {
			if get(hso, k).Exists() {
				r.Warnings = append(r.Warnings, noCounterpart(ev, "hookSpecificOutput."+k+" changes the model call", ""))
			}
		}
	}
	if c := get(v, "continue"); c.Type == gjson.False {
		switch ev.Name {
		case "SessionStart", "SessionEnd", "Notification", "PreCompress", "BeforeToolSelection":
			// Gemini ignores flow control on these events.
		default:
			r.Answer.Stop = true
			r.Answer.StopReason = firstNonBlank(get(v, "stopReason"), get(v, "reason"))
			if ev.Name == "BeforeTool" && r.Answer.Kind != protocol.Block {
				// The tool does not run when the agent stops.
				r.Answer = protocol.Answer{Kind: protocol.Block, Message: orDefault(r.Answer.StopReason), Stop: true, StopReason: r.Answer.StopReason}
			}
		}
	}
	return r
}

// geminiUpdate maps a Gemini tool_input that rewrites call's arguments back
// to Noora's keys.
func geminiUpdate(call dispatch.Call, in gjson.Result) protocol.Object {
	obj, _ := protocol.ParseObject([]byte(in.Raw))
	if obj == nil {
		obj = protocol.Object{}
	}
	tool, _ := protocol.ToolName(call.Kwargs)
	args, _ := protocol.ToolArgs(call.Kwargs)
	name, _ := GeminiTool(tool, args)
	for i := range geminiTools {
		if r := &geminiTools[i]; r.Claude == name && r.Noora == tool {
			return r.renameToNoora(obj)
		}
	}
	return obj
}

// geminiRenames: payload key → Noora kwarg, per event (the inverse of
// geminiPayload).
var geminiRenames = map[string]map[string]string{
	"BeforeAgent":  {"prompt": "user_message"},
	"AfterAgent":   {"prompt": "user_message", "prompt_response": "final_response"},
	"Notification": {"message": "description"},
}

func geminiKwargs(ev *Event, p protocol.Object) protocol.Kwargs {
	kw := protocol.Kwargs{}
	renames := geminiRenames[ev.Name]
	toolName, hasTool := p.GetString("tool_name")
	for _, f := range p {
		switch f.Key {
		case "hook_event_name", "cwd":
			continue
		case "tool_name":
			input, _ := protocol.ToolArgs(protocol.Kwargs{{Key: "args", Value: raw(p, "tool_input")}})
			name, args := NooraGeminiTool(toolName, input)
			kw = kw.With("tool_name", protocol.String(name))
			if args == nil {
				args = protocol.Object{}
			}
			kw = kw.With("args", protocol.Raw(args))
			continue
		case "tool_input":
			if hasTool {
				continue
			}
		case "tool_response":
			r := gjson.ParseBytes(f.Value)
			content := protocol.Member(r, "llmContent")
			if content.Type == gjson.String {
				kw = kw.With("result", protocol.String(content.String()))
			} else {
				kw = kw.With("result", protocol.String(strings.TrimSpace(r.Raw)))
			}
			if e := protocol.Member(r, "error"); e.Exists() && e.Type != gjson.Null {
				msg := e.String()
				if m := protocol.Member(e, "message"); m.Type == gjson.String {
					msg = m.String()
				}
				kw = kw.With("status", protocol.String("error")).With("error_message", protocol.String(msg))
			}
			continue
		case "stop_hook_active":
			if ev.Name == "AfterAgent" {
				kw = kw.With("attempt", attemptOf(f.Value))
				continue
			}
		case "details":
			if c := protocol.Member(gjson.ParseBytes(f.Value), "command"); c.Type == gjson.String {
				kw = kw.With("command", protocol.String(c.String()))
			}
		case "llm_request":
			if m := protocol.Member(gjson.ParseBytes(f.Value), "model"); m.Type == gjson.String {
				kw = kw.With("model", protocol.String(m.String()))
			}
		}
		key := f.Key
		if to, ok := renames[key]; ok {
			key = to
		}
		kw = kw.With(key, f.Value)
	}
	if ev.Name == "AfterTool" {
		if _, ok := kw.Get("status"); !ok {
			kw = kw.With("status", protocol.String("success"))
		}
	}
	return kw
}

// encodeGemini writes the combined Noora answer as Gemini CLI reads it:
// always one JSON object on stdout (an empty stdout would make Gemini read
// stderr, where warnings go).
func encodeGemini(in Inbound, c protocol.Combined, action, message string, out *Outbound) []byte {
	var o, hso protocol.Object
	set := func(key string, v json.RawMessage) { o = append(o, protocol.Field{Key: key, Value: v}) }
	ctx, _ := c.Answer.GetString("context")
	switch in.Name {
	case "BeforeTool":
		args, rewritten := mergedArgs(c)
		switch action {
		case "block":
			set("decision", protocol.String("deny"))
			set("reason", protocol.String(orDefault(message)))
		case "approve":
			// "ask": Gemini asks the user; a headless run (-p) cannot, and
			// ends without running the tool.
			if message == "" {
				message = approvalMessage
			}
			set("decision", protocol.String("ask"))
			set("reason", protocol.String(message))
		}
		if rewritten && action != "block" {
			// Gemini replaces the arguments: hand it all of them.
			tool, _ := protocol.ToolName(in.Kwargs)
			_, input := GeminiTool(tool, args)
			hso = append(hso, protocol.Field{Key: "tool_input", Value: protocol.Raw(input)})
		}
	case "AfterTool", "BeforeAgent":
		if strings.TrimSpace(ctx) != "" {
			hso = append(hso, protocol.Field{Key: "additionalContext", Value: protocol.String(ctx)})
		}
	case "AfterAgent":
		if action == "continue" {
			set("decision", protocol.String("deny"))
			set("reason", protocol.String(message))
		}
	}
	if stop, ok := c.Answer.Get("stop"); ok && gjson.ParseBytes(stop).Type == gjson.True {
		reason, _ := c.Answer.GetString("stop_reason")
		switch in.Name {
		case "SessionStart", "SessionEnd", "Notification":
			out.Warnings = append(out.Warnings, "Gemini CLI ignores continue: false on "+in.Name+"; the stop was dropped: "+shellhook.Excerpt(reason))
		default:
			set("continue", protocol.Raw(false))
			set("stopReason", protocol.String(reason))
		}
	}
	if len(hso) > 0 {
		hso = append(protocol.Object{{Key: "hookEventName", Value: protocol.String(in.Name)}}, hso...)
		set("hookSpecificOutput", protocol.Raw(hso))
	}
	if o == nil {
		return []byte("{}\n")
	}
	return line(o)
}
