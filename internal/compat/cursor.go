package compat

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/noora-hooks/noora-hooks/internal/dispatch"
	"github.com/noora-hooks/noora-hooks/internal/runner"
	"github.com/noora-hooks/noora-hooks/internal/shellhook"

	"github.com/tidwall/gjson"

	"github.com/noora-hooks/noora-hooks/protocol"
)

// cursorDialect runs hooks written for Cursor: they read Cursor's payload
// (Hooks reference: "Common schema", "Hook events") and answer with
// permission / user_message / agent_message, continue, followup_message.
// Cursor 1.7 has no matchers and says nothing of exit codes; a matcher
// follows Claude's rules against the event's subject (the command, the MCP
// tool, the file), and exit 2 blocks a tool call as it does in Noora and in
// later Cursor releases.
var cursorDialect = dialect{tool: Cursor, projectVar: "CURSOR_PROJECT_DIR", payload: cursorPayload, read: readCursor}

// cursorPayload is what Cursor would send for call: the common fields, then
// the event's own.
func cursorPayload(ev *Event, call dispatch.Call) protocol.Object {
	kw := call.Kwargs
	args, _ := protocol.ToolArgs(kw)
	tool, _ := protocol.ToolName(kw)
	conv, ok := kwValue(kw, "conversation_id")
	if !ok {
		conv = sessionID(kw)
	}
	p := protocol.Object{
		{Key: "conversation_id", Value: conv},
		{Key: "generation_id", Value: stringOr(kw, "", "generation_id", "turn_id")},
	}
	add := func(key string, v json.RawMessage) { p = append(p, protocol.Field{Key: key, Value: v}) }
	addFrom := func(key string, keys ...string) {
		if v, ok := kwValue(kw, keys...); ok {
			add(key, v)
		}
	}
	addFrom("model", "model")
	add("hook_event_name", protocol.String(ev.Name))
	addFrom("cursor_version", "cursor_version")
	if roots, ok := kwValue(kw, "workspace_roots"); ok {
		add("workspace_roots", roots)
	} else {
		add("workspace_roots", protocol.Raw([]string{projectDir(call.Env, "CURSOR_PROJECT_DIR", call.Cwd)}))
	}
	if email, ok := kwValue(kw, "user_email"); ok {
		add("user_email", email)
	} else {
		add("user_email", json.RawMessage("null"))
	}

	switch ev.Name {
	case "beforeShellExecution", "afterShellExecution":
		add("command", stringOr(args, "", "command"))
		if ev.Name == "beforeShellExecution" {
			cwd := call.Cwd
			if wd, ok := args.GetString("workdir"); ok && wd != "" {
				cwd = absPath(call.Cwd, wd)
			}
			add("cwd", protocol.String(cwd))
		} else {
			add("output", stringOr(kw, "", "output", "result"))
			addFrom("duration", "duration", "duration_ms")
		}
	case "beforeMCPExecution", "afterMCPExecution":
		add("tool_name", protocol.String(cursorMCPName(tool)))
		// Cursor hands MCP parameters over as JSON text.
		in := args
		if in == nil {
			in = protocol.Object{}
		}
		b, _ := in.MarshalJSON()
		add("tool_input", protocol.String(string(b)))
		if ev.Name == "beforeMCPExecution" {
			addFrom("url", "server_url")
			addFrom("command", "server_command")
		} else {
			add("result_json", stringOr(kw, "", "result_json", "result"))
			addFrom("duration", "duration", "duration_ms")
		}
	case "beforeReadFile":
		path, _ := args.GetString("path")
		add("file_path", protocol.String(absPath(call.Cwd, path)))
		addFrom("content", "content")
		add("attachments", listOr(kw, "attachments"))
	case "afterFileEdit":
		path, _ := args.GetString("path")
		add("file_path", protocol.String(absPath(call.Cwd, path)))
		if v, ok := kwValue(kw, "edits"); ok {
			add("edits", v)
		} else {
			add("edits", editsOf(tool, args))
		}
	case "beforeSubmitPrompt":
		add("prompt", stringOr(kw, "", "user_message", "prompt"))
		add("attachments", listOr(kw, "attachments"))
	case "afterAgentResponse":
		add("text", stringOr(kw, "", "assistant_response", "text"))
	case "stop":
		add("status", stringOr(kw, "completed", "status"))
		if v, ok := kwValue(kw, "loop_count", "attempt"); ok {
			add("loop_count", v)
		} else {
			add("loop_count", json.RawMessage("0"))
		}
	}
	return p
}

// editsOf describes a Noora edit the way afterFileEdit does: a list of
// replacements; writing a whole file replaces nothing with its content.
func editsOf(tool string, args protocol.Object) json.RawMessage {
	if v, ok := args.Get("edits"); ok {
		return v
	}
	edit := protocol.Object{
		{Key: "old_string", Value: stringOr(args, "", "old_string")},
		{Key: "new_string", Value: stringOr(args, "", "new_string")},
	}
	if tool == "write_file" {
		edit = protocol.Object{
			{Key: "old_string", Value: protocol.String("")},
			{Key: "new_string", Value: stringOr(args, "", "content")},
		}
	}
	return protocol.Raw([]protocol.Object{edit})
}

func listOr(kw protocol.Kwargs, key string) json.RawMessage {
	if v, ok := kwValue(kw, key); ok {
		return v
	}
	return json.RawMessage("[]")
}

// absPath: Cursor gives absolute paths; Noora's may be relative to the
// working directory.
func absPath(cwd, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(cwd, p)
}

// readCursor is Noora's reading (which knows Cursor's permission answers,
// in snake_case and camelCase), plus what only Cursor says: followup_message
// at stop, continue: false before a prompt.
func readCursor(ev *Event, call dispatch.Call, out runner.Outcome) shellhook.Reading {
	r := shellhook.ReadNoora(call.Event.Name, out)
	if out.Code == 2 && r.Answer.Kind == protocol.Block && r.Answer.Message == shellhook.StderrMessage(out) {
		// Blocked by the exit status: the whole stderr, as for Claude.
		if msg := DialectMessage(out); msg != "" {
			r.Answer.Message = msg
		}
	}
	if out.StdoutTruncated {
		return r
	}
	v, ok, err := protocol.Parse(out.Stdout)
	if err != nil || !ok || !v.IsObject() {
		return r
	}
	get := func(keys ...string) gjson.Result {
		for _, k := range keys {
			if x := protocol.Member(v, k); x.Exists() {
				return x
			}
		}
		return gjson.Result{}
	}
	switch ev.Name {
	case "stop":
		if msg := firstNonBlank(get("followup_message", "followupMessage")); msg != "" && r.Answer.Kind == protocol.None {
			r.Answer = protocol.Answer{Kind: protocol.Continue, Message: msg}
		}
	case "beforeSubmitPrompt":
		// "continue": false keeps the prompt from being sent: Noora's stop,
		// with the text Cursor shows the person.
		if get("continue").Type == gjson.False && r.Answer.StopReason == "" {
			r.Answer.StopReason = firstNonBlank(get("user_message", "userMessage"))
		}
	}
	return r
}

// cursorTool is the Noora tool call an event stands for, when it is one.
func cursorTool(ev *Event, payload gjson.Result) (string, protocol.Object) {
	get := func(k string) gjson.Result { return protocol.Member(payload, k) }
	switch ev.Name {
	case "beforeShellExecution", "afterShellExecution":
		args := protocol.Object{{Key: "command", Value: protocol.String(get("command").String())}}
		if cwd := get("cwd"); cwd.Type == gjson.String && strings.TrimSpace(cwd.String()) != "" {
			args = append(args, protocol.Field{Key: "workdir", Value: protocol.String(cwd.String())})
		}
		return "terminal", args
	case "beforeMCPExecution", "afterMCPExecution":
		in := get("tool_input")
		var args protocol.Object
		switch {
		case in.IsObject():
			args, _ = protocol.ParseObject([]byte(in.Raw))
		case in.Type == gjson.String && gjson.Valid(in.String()) && gjson.Parse(in.String()).IsObject():
			args, _ = protocol.ParseObject([]byte(in.String()))
		}
		if args == nil {
			args = protocol.Object{}
		}
		return nooraCursorMCPName(get("tool_name").String()), args
	case "beforeReadFile":
		return "read_file", protocol.Object{{Key: "path", Value: protocol.String(get("file_path").String())}}
	case "afterFileEdit":
		args := protocol.Object{{Key: "mode", Value: protocol.String("replace")}, {Key: "path", Value: protocol.String(get("file_path").String())}}
		if edits := get("edits").Array(); len(edits) == 1 {
			args = append(args,
				protocol.Field{Key: "old_string", Value: protocol.String(edits[0].Get("old_string").String())},
				protocol.Field{Key: "new_string", Value: protocol.String(edits[0].Get("new_string").String())})
		}
		return "patch", args
	}
	return "", nil
}
