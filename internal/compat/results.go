package compat

import (
	"encoding/json"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/noora-hooks/noora-hooks/protocol"
)

// Tool results, both ways. Noora's post_tool_call "result" is the tool's
// return value, a string that is JSON text for most tools (the terminal:
// {"output", "exit_code", "error"}; read_file: {"content", "total_lines",
// ...}). Claude Code hands PostToolUse hooks a structured tool_response of
// its own shape (Bash: {stdout, stderr, interrupted, isImage,
// noOutputExpected}, as Claude Code 2.1.332 sends it; Read: {type, file:
// {filePath, content, numLines, startLine, totalLines}}), and scripts read
// .tool_response.stdout. Tools not mapped here pass through as they are.

// claudeResponse is the tool_response a Claude hook gets for Noora's
// result of tool.
func claudeResponse(tool string, args protocol.Object, result json.RawMessage) json.RawMessage {
	inner, ok := resultObject(result)
	switch {
	case !ok:
	case tool == "terminal" && member(inner, "output").Exists():
		stderr := ""
		if e := member(inner, "error"); e.Type == gjson.String {
			stderr = e.String()
		}
		return protocol.Raw(protocol.Object{
			{Key: "stdout", Value: protocol.String(member(inner, "output").String())},
			{Key: "stderr", Value: protocol.String(stderr)},
			{Key: "interrupted", Value: protocol.Raw(false)},
			{Key: "isImage", Value: protocol.Raw(false)},
			{Key: "noOutputExpected", Value: protocol.Raw(false)},
		})
	case tool == "read_file" && member(inner, "content").Type == gjson.String:
		content := member(inner, "content").String()
		lines := strings.Count(content, "\n")
		if content != "" && !strings.HasSuffix(content, "\n") {
			lines++
		}
		total := int64(lines)
		if t := member(inner, "total_lines"); t.Type == gjson.Number {
			total = t.Int()
		}
		path, _ := kwString(args, "path")
		file := protocol.Object{
			{Key: "filePath", Value: protocol.String(path)},
			{Key: "content", Value: protocol.String(content)},
			{Key: "numLines", Value: protocol.Raw(lines)},
			{Key: "startLine", Value: protocol.Raw(max(gjson.ParseBytes(raw(args, "offset")).Int(), 1))},
			{Key: "totalLines", Value: protocol.Raw(total)},
		}
		return protocol.Raw(protocol.Object{
			{Key: "type", Value: protocol.String("text")},
			{Key: "file", Value: protocol.Raw(file)},
		})
	}
	return unwrapResult(result)
}

// nooraResult is Noora's result for a Claude tool_response of claudeTool:
// JSON text in the shape the Noora tool returns.
func nooraResult(claudeTool string, response json.RawMessage) json.RawMessage {
	r := gjson.ParseBytes(response)
	switch {
	case r.Type == gjson.String:
		return response
	case claudeTool == "Bash" && r.IsObject() && member(r, "stdout").Exists():
		out := member(r, "stdout").String()
		if e := member(r, "stderr").String(); e != "" {
			if out != "" && !strings.HasSuffix(out, "\n") {
				out += "\n"
			}
			out += e
		}
		text, _ := protocol.Object{
			{Key: "output", Value: protocol.String(out)},
			{Key: "exit_code", Value: protocol.Raw(0)}, // PostToolUse: the call succeeded
			{Key: "error", Value: json.RawMessage("null")},
		}.MarshalJSON()
		return protocol.String(string(text))
	case claudeTool == "Read" && r.IsObject() && member(member(r, "file"), "content").Type == gjson.String:
		file := member(r, "file")
		o := protocol.Object{{Key: "content", Value: protocol.String(member(file, "content").String())}}
		if t := member(file, "totalLines"); t.Type == gjson.Number {
			o = append(o, protocol.Field{Key: "total_lines", Value: protocol.Raw(t.Int())})
		}
		text, _ := o.MarshalJSON()
		return protocol.String(string(text))
	}
	return protocol.String(strings.TrimSpace(r.Raw))
}

// resultObject reads Noora's result as the JSON object it holds as text.
func resultObject(result json.RawMessage) (gjson.Result, bool) {
	r := gjson.ParseBytes(result)
	if r.Type == gjson.String {
		if inner := strings.TrimSpace(r.String()); gjson.Valid(inner) {
			r = gjson.Parse(inner)
		}
	}
	return r, r.IsObject()
}

// unwrapResult: a result that is JSON text of an object or a list is handed
// over as that value; anything else as it is.
func unwrapResult(v json.RawMessage) json.RawMessage {
	if r := gjson.ParseBytes(v); r.Type == gjson.String {
		if inner := strings.TrimSpace(r.String()); gjson.Valid(inner) {
			if p := gjson.Parse(inner); p.IsObject() || p.IsArray() {
				return json.RawMessage(inner)
			}
		}
	}
	return v
}
