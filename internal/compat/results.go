package compat

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/noora-hooks/noora-hooks/internal/lazy"
	"github.com/noora-hooks/noora-hooks/protocol"
)

// Tool results, both ways, per tool (the ClaudeResult and NooraResult of
// each rule in claudeTools). Noora's post_tool_call "result" is the tool's
// return value, a string that is JSON text for most tools. Claude Code hands
// PostToolUse hooks a structured tool_response of its own shape, and scripts
// read .tool_response.stdout or .tool_response.filePath.
//
// Where the shapes come from:
//   - Claude Code's: recorded from Claude Code 2.1.332 (`go run ./e2e
//     -capture`, scenario tool-results); testdata/claude holds the payloads.
//   - Noora's: the Noora agent's tool handlers (hermes-agent): the result
//     classes' to_dict in tools/file_operations_common.py, write_file_tool,
//     patch_tool and search_tool in tools/file_tools.py, web_search_tool and
//     web_extract_tool in tools/web_tools.py, the terminal's
//     {"output", "exit_code", "error"}.
//
// A converter maps the keys both sides have; a value one side lacks is left
// out, unless Claude's shape always carries the key (then the neutral
// value, as Bash's interrupted: false). Every other key is carried over
// unchanged, so nothing a hook could read is lost. A result of any other
// shape (an error, a truncated search with its hint after the JSON) passes
// through as it is.

// claudeResponse is the tool_response a Claude hook gets for Noora's
// result of tool, called with args.
func claudeResponse(tool string, args protocol.Object, result json.RawMessage) json.RawMessage {
	if rule := claudeRule(tool, args); rule != nil && rule.ClaudeResult != nil {
		if inner, ok := resultObject(result); ok {
			if response, ok := rule.ClaudeResult(inner, args); ok {
				return encode(response)
			}
		}
	}
	return unwrapResult(result)
}

// nooraResult is Noora's result for a Claude tool_response of claudeTool:
// JSON text in the shape the Noora tool returns.
func nooraResult(claudeTool string, response json.RawMessage) json.RawMessage {
	r := gjson.ParseBytes(response)
	if r.Type == gjson.String {
		return response
	}
	if rule := nooraRule(claudeTool); rule != nil && rule.NooraResult != nil && r.IsObject() {
		if result, ok := rule.NooraResult(r); ok {
			return protocol.String(string(encode(result)))
		}
	}
	return protocol.String(strings.TrimSpace(r.Raw))
}

// terminal ↔ Bash. Bash: {stdout, stderr, interrupted, isImage,
// noOutputExpected}.

func bashResponse(r gjson.Result, _ protocol.Object) (protocol.Object, bool) {
	if !member(r, "output").Exists() {
		return nil, false
	}
	stderr := ""
	if e := member(r, "error"); e.Type == gjson.String {
		stderr = e.String()
	}
	return protocol.Object{
		{Key: "stdout", Value: protocol.String(member(r, "output").String())},
		{Key: "stderr", Value: protocol.String(stderr)},
		{Key: "interrupted", Value: protocol.Raw(false)},
		{Key: "isImage", Value: protocol.Raw(false)},
		{Key: "noOutputExpected", Value: protocol.Raw(false)},
	}, true
}

func terminalResult(r gjson.Result) (protocol.Object, bool) {
	if !member(r, "stdout").Exists() {
		return nil, false
	}
	out := member(r, "stdout").String()
	if e := member(r, "stderr").String(); e != "" {
		if out != "" && !strings.HasSuffix(out, "\n") {
			out += "\n"
		}
		out += e
	}
	return protocol.Object{
		{Key: "output", Value: protocol.String(out)},
		{Key: "exit_code", Value: protocol.Raw(0)}, // PostToolUse: the call succeeded
		{Key: "error", Value: json.RawMessage("null")},
	}, true
}

// read_file ↔ Read. Read: {type: "text", file: {filePath, content,
// numLines, startLine, totalLines}}.

func readResponse(r gjson.Result, args protocol.Object) (protocol.Object, bool) {
	if member(r, "content").Type != gjson.String {
		return nil, false
	}
	content := member(r, "content").String()
	// Claude counts the pieces between newlines: "a\nb\n" is 3 lines in
	// Claude Code 2.1.332's numLines (testdata/claude/PostToolUse_Read.json).
	lines := 0
	if content != "" {
		lines = strings.Count(content, "\n") + 1
	}
	total := int64(lines)
	if t := member(r, "total_lines"); t.Type == gjson.Number {
		total = t.Int()
	}
	file := protocol.Object{
		{Key: "filePath", Value: protocol.String(argString(args, "path"))},
		{Key: "content", Value: protocol.String(content)},
		{Key: "numLines", Value: protocol.Raw(lines)},
		{Key: "startLine", Value: protocol.Raw(max(gjson.ParseBytes(raw(args, "offset")).Int(), 1))},
		{Key: "totalLines", Value: protocol.Raw(total)},
	}
	return protocol.Object{
		{Key: "type", Value: protocol.String("text")},
		{Key: "file", Value: encode(file)},
	}, true
}

func readFileResult(r gjson.Result) (protocol.Object, bool) {
	file := member(r, "file")
	if member(file, "content").Type != gjson.String {
		return nil, false
	}
	o := protocol.Object{{Key: "content", Value: protocol.String(member(file, "content").String())}}
	if t := member(file, "totalLines"); t.Type == gjson.Number {
		o = append(o, protocol.Field{Key: "total_lines", Value: protocol.Raw(t.Int())})
	}
	return o, true
}

// write_file ↔ Write. Noora: {bytes_written, dirs_created, resolved_path,
// files_modified, ...}; Write: {type: "create"|"update", filePath, content,
// structuredPatch, originalFile, userModified}.

func writeResponse(r gjson.Result, args protocol.Object) (protocol.Object, bool) {
	if member(r, "bytes_written").Type != gjson.Number || reportsError(r) {
		return nil, false
	}
	var out protocol.Object
	if member(r, "dirs_created").Type == gjson.True {
		// Only a file in a new directory is surely new; for any other,
		// Noora does not say whether it was there before.
		out = out.With("type", protocol.String("create"))
	}
	out = out.With("filePath", protocol.String(resultPath(r, args)))
	if content, ok := args.GetString("content"); ok {
		out = out.With("content", protocol.String(content))
	}
	return carry(out, r, "resolved_path", "files_modified"), true
}

func writeFileResult(r gjson.Result) (protocol.Object, bool) {
	path := member(r, "filePath")
	if path.Type != gjson.String {
		return nil, false
	}
	var out protocol.Object
	if c := member(r, "content"); c.Type == gjson.String {
		out = out.With("bytes_written", protocol.Raw(len(c.String())))
	}
	out = out.With("resolved_path", protocol.String(path.String())).
		With("files_modified", protocol.Raw([]string{path.String()}))
	return carry(out, r, "filePath", "content"), true
}

// patch ↔ Edit. Noora: {success, diff (unified), files_modified,
// resolved_path, ...}; Edit: {filePath, oldString, newString,
// originalFile, structuredPatch: [{oldStart, oldLines, newStart, newLines,
// lines}], userModified, replaceAll}. The strings come from the call.

func editResponse(r gjson.Result, args protocol.Object) (protocol.Object, bool) {
	// A patch of several files (V4A mode) is no Edit.
	if member(r, "success").Type != gjson.True || len(member(r, "files_modified").Array()) > 1 {
		return nil, false
	}
	out := protocol.Object{{Key: "filePath", Value: protocol.String(resultPath(r, args))}}
	for _, k := range [][2]string{{"old_string", "oldString"}, {"new_string", "newString"}} {
		if s, ok := args.GetString(k[0]); ok {
			out = out.With(k[1], protocol.String(s))
		}
	}
	used := []string{"success", "resolved_path", "files_modified"}
	if hunks, ok := parseUnifiedDiff(member(r, "diff").String()); ok {
		out = out.With("structuredPatch", protocol.Raw(hunks))
		used = append(used, "diff")
	}
	// Edit always says; Noora's patch defaults to false.
	out = out.With("replaceAll", protocol.Raw(gjson.ParseBytes(raw(args, "replace_all")).Type == gjson.True))
	return carry(out, r, used...), true
}

func patchResult(r gjson.Result) (protocol.Object, bool) {
	path := member(r, "filePath")
	if path.Type != gjson.String {
		return nil, false
	}
	out := protocol.Object{{Key: "success", Value: protocol.Raw(true)}}
	used := []string{"filePath", "oldString", "newString", "replaceAll"}
	if diff, ok := unifiedDiff(path.String(), member(r, "structuredPatch")); ok {
		if diff != "" {
			out = out.With("diff", protocol.String(diff))
		}
		used = append(used, "structuredPatch")
	}
	out = out.With("files_modified", protocol.Raw([]string{path.String()})).
		With("resolved_path", protocol.String(path.String()))
	return carry(out, r, used...), true
}

// search_files ↔ Glob (target "files"). Noora: {total_count, files,
// truncated, total_count_is_lower_bound} (files and the flags left out when
// empty or false); Glob: {filenames, durationMs, numFiles, truncated,
// totalMatches, countIsComplete}.

func globResponse(r gjson.Result, _ protocol.Object) (protocol.Object, bool) {
	if member(r, "total_count").Type != gjson.Number || reportsError(r) {
		return nil, false
	}
	names, n := listOf(member(r, "files"))
	out := protocol.Object{
		{Key: "filenames", Value: names},
		{Key: "numFiles", Value: protocol.Raw(n)},
		{Key: "truncated", Value: protocol.Raw(member(r, "truncated").Type == gjson.True)},
		{Key: "totalMatches", Value: json.RawMessage(member(r, "total_count").Raw)},
		{Key: "countIsComplete", Value: protocol.Raw(member(r, "total_count_is_lower_bound").Type != gjson.True)},
	}
	return carry(out, r, "files", "total_count", "truncated", "total_count_is_lower_bound"), true
}

func filesSearchResult(r gjson.Result) (protocol.Object, bool) {
	names := member(r, "filenames")
	if !names.IsArray() {
		return nil, false
	}
	out := protocol.Object{{Key: "total_count", Value: firstNumber(len(names.Array()), member(r, "totalMatches"), member(r, "numFiles"))}}
	if len(names.Array()) > 0 {
		out = out.With("files", json.RawMessage(names.Raw))
	}
	if member(r, "truncated").Type == gjson.True {
		out = out.With("truncated", protocol.Raw(true))
	}
	if member(r, "countIsComplete").Type == gjson.False {
		out = out.With("total_count_is_lower_bound", protocol.Raw(true))
	}
	return carry(out, r, "filenames", "numFiles", "truncated", "totalMatches", "countIsComplete"), true
}

// search_files ↔ Grep (target "content"), per output mode. Noora:
// files_only {total_count, files}, count {total_count, counts: {path: n}},
// content {total_count, matches: [{path, line, content}]} or, from five
// matches on, {matches_format, matches_text: "path\n  line: content"}.
// Grep: {mode: "files_with_matches", filenames, numFiles, totalFiles},
// {mode: "count", numFiles, filenames: [], content: "path:n\n...",
// numMatches}, {mode: "content", numFiles: 0, filenames: [], content:
// "path:line:text\n...", numLines, totalLines}.

func grepResponse(r gjson.Result, args protocol.Object) (protocol.Object, bool) {
	total := member(r, "total_count")
	if total.Type != gjson.Number || reportsError(r) {
		return nil, false
	}
	switch mode := argString(args, "output_mode"); mode {
	case "files_only":
		names, n := listOf(member(r, "files"))
		out := protocol.Object{
			{Key: "mode", Value: protocol.String("files_with_matches")},
			{Key: "filenames", Value: names},
			{Key: "numFiles", Value: protocol.Raw(n)},
			{Key: "totalFiles", Value: json.RawMessage(total.Raw)},
		}
		return carry(out, r, "files", "total_count"), true
	case "count":
		var lines []string
		member(r, "counts").ForEach(func(path, n gjson.Result) bool {
			lines = append(lines, path.String()+":"+n.Raw)
			return true
		})
		out := protocol.Object{
			{Key: "mode", Value: protocol.String("count")},
			{Key: "numFiles", Value: protocol.Raw(len(lines))},
			{Key: "filenames", Value: json.RawMessage("[]")},
			{Key: "content", Value: protocol.String(strings.Join(lines, "\n"))},
			{Key: "numMatches", Value: json.RawMessage(total.Raw)},
		}
		return carry(out, r, "counts", "total_count"), true
	case "", "content":
		lines, ok := matchLines(r)
		if !ok {
			return nil, false
		}
		// numFiles 0 and no filenames: what Claude Code says in content mode.
		out := protocol.Object{
			{Key: "mode", Value: protocol.String("content")},
			{Key: "numFiles", Value: protocol.Raw(0)},
			{Key: "filenames", Value: json.RawMessage("[]")},
			{Key: "content", Value: protocol.String(strings.Join(lines, "\n"))},
			{Key: "numLines", Value: protocol.Raw(len(lines))},
			{Key: "totalLines", Value: json.RawMessage(total.Raw)},
		}
		return carry(out, r, "matches", "matches_text", "matches_format", "total_count"), true
	}
	return nil, false
}

// matchLines are Noora's content matches as Grep prints them.
func matchLines(r gjson.Result) ([]string, bool) {
	var lines []string
	if text := member(r, "matches_text"); text.Type == gjson.String {
		path := ""
		for _, l := range strings.Split(text.String(), "\n") {
			row, isRow := strings.CutPrefix(l, "  ")
			if !isRow {
				path = l
				continue
			}
			n, content, ok := strings.Cut(row, ": ")
			if _, err := strconv.Atoi(n); !ok || err != nil || path == "" {
				return nil, false
			}
			lines = append(lines, path+":"+n+":"+content)
		}
		return lines, true
	}
	ok := true
	member(r, "matches").ForEach(func(_, m gjson.Result) bool {
		if member(m, "line").Type != gjson.Number {
			ok = false
			return false
		}
		lines = append(lines, fmt.Sprintf("%s:%s:%s", member(m, "path").String(), member(m, "line").Raw, member(m, "content").String()))
		return true
	})
	return lines, ok
}

// grepLine is one line of Grep's content: path:line:text.
var grepLine = lazy.Regexp(`^(.*?):(\d+):(.*)$`)

func contentSearchResult(r gjson.Result) (protocol.Object, bool) {
	content := member(r, "content")
	switch member(r, "mode").String() {
	case "files_with_matches":
		names := member(r, "filenames")
		if !names.IsArray() {
			return nil, false
		}
		out := protocol.Object{{Key: "total_count", Value: firstNumber(len(names.Array()), member(r, "totalFiles"), member(r, "numFiles"))}}
		if len(names.Array()) > 0 {
			out = out.With("files", json.RawMessage(names.Raw))
		}
		return carry(out, r, "mode", "filenames", "numFiles", "totalFiles"), true
	case "count":
		if content.Type != gjson.String {
			return nil, false
		}
		var counts protocol.Object
		sum := 0
		for _, l := range nonEmptyLines(content.String()) {
			i := strings.LastIndexByte(l, ':')
			n, err := strconv.Atoi(l[i+1:])
			if i <= 0 || err != nil {
				return nil, false
			}
			counts = counts.With(l[:i], protocol.Raw(n))
			sum += n
		}
		out := protocol.Object{{Key: "total_count", Value: firstNumber(sum, member(r, "numMatches"))}}
		if len(counts) > 0 { // Noora leaves out what is empty
			out = out.With("counts", encode(counts))
		}
		return carry(out, r, "mode", "content", "numFiles", "filenames", "numMatches"), true
	case "content":
		if content.Type != gjson.String {
			return nil, false
		}
		var matches []map[string]any
		for _, l := range nonEmptyLines(content.String()) {
			m := grepLine().FindStringSubmatch(l)
			if m == nil {
				return nil, false // printed without line numbers (-n false)
			}
			n, _ := strconv.Atoi(m[2])
			matches = append(matches, map[string]any{"path": m[1], "line": n, "content": m[3]})
		}
		out := protocol.Object{{Key: "total_count", Value: firstNumber(len(matches), member(r, "totalLines"), member(r, "numLines"))}}
		if len(matches) > 0 {
			out = out.With("matches", protocol.Raw(matches))
		}
		return carry(out, r, "mode", "content", "numFiles", "filenames", "numLines", "totalLines"), true
	}
	return nil, false
}

// web_search ↔ WebSearch. Noora: {success, data: {web: [{title, url,
// description, position}]}}; WebSearch: {query, results: [{tool_use_id,
// content: [{title, url}]}, "the search model's text", ...],
// durationSeconds, searchCount}. Noora has no place for that text, nor for
// tool_use_id: Claude → Noora leaves them out.

func webSearchResponse(r gjson.Result, args protocol.Object) (protocol.Object, bool) {
	data := member(r, "data")
	web := member(data, "web")
	if !web.IsArray() || member(r, "success").Type == gjson.False || len(data.Map()) != 1 {
		return nil, false
	}
	var out protocol.Object
	if q, ok := args.GetString("query"); ok {
		out = out.With("query", protocol.String(q))
	}
	search := encode(protocol.Object{{Key: "content", Value: json.RawMessage(web.Raw)}})
	out = out.With("results", json.RawMessage("["+string(search)+"]"))
	return carry(out, r, "success", "data"), true
}

func webSearchResult(r gjson.Result) (protocol.Object, bool) {
	results := member(r, "results")
	if !results.IsArray() {
		return nil, false
	}
	web := []json.RawMessage{}
	for _, item := range results.Array() {
		for _, page := range member(item, "content").Array() {
			if !page.IsObject() {
				continue
			}
			entry := carry(nil, page)
			if _, ok := entry.Get("position"); !ok {
				entry = entry.With("position", protocol.Raw(len(web)+1))
			}
			web = append(web, encode(entry))
		}
	}
	out := protocol.Object{
		{Key: "success", Value: protocol.Raw(true)},
		{Key: "data", Value: encode(protocol.Object{{Key: "web", Value: protocol.Raw(web)}})},
	}
	return carry(out, r, "results"), true
}

// web_extract ↔ WebFetch. Noora: {results: [{url, title, content, error}]};
// WebFetch, one page: {bytes, code, codeText, result, durationMs, url}.

func webFetchResponse(r gjson.Result, _ protocol.Object) (protocol.Object, bool) {
	pages := member(r, "results").Array()
	if len(pages) != 1 || member(pages[0], "content").Type != gjson.String ||
		(member(pages[0], "error").Exists() && member(pages[0], "error").Type != gjson.Null) {
		return nil, false
	}
	page := pages[0]
	out := protocol.Object{
		{Key: "result", Value: protocol.String(member(page, "content").String())},
		{Key: "url", Value: json.RawMessage(member(page, "url").Raw)},
	}
	if !member(page, "url").Exists() {
		out = out[:1]
	}
	return carry(carry(out, page, "content", "error"), r, "results"), true
}

func webExtractResult(r gjson.Result) (protocol.Object, bool) {
	text := member(r, "result")
	if text.Type != gjson.String {
		return nil, false
	}
	page := protocol.Object{{Key: "url", Value: protocol.String(member(r, "url").String())}}
	if t := member(r, "title"); t.Type == gjson.String {
		page = page.With("title", protocol.String(t.String()))
	}
	page = page.With("content", protocol.String(text.String()))
	out := protocol.Object{{Key: "results", Value: json.RawMessage("[" + string(encode(page)) + "]")}}
	return carry(out, r, "url", "title", "result"), true
}

// Unified diffs ↔ Claude's structuredPatch.

// hunk is one hunk of Claude's structuredPatch.
type hunk struct {
	OldStart int      `json:"oldStart"`
	OldLines int      `json:"oldLines"`
	NewStart int      `json:"newStart"`
	NewLines int      `json:"newLines"`
	Lines    []string `json:"lines"`
}

var hunkHeader = lazy.Regexp(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@`)

// parseUnifiedDiff reads the hunks of a one-file unified diff; ok=false
// when it holds none or something else.
func parseUnifiedDiff(diff string) ([]hunk, bool) {
	var hunks []hunk
	oldLeft, newLeft := 0, 0 // lines the current hunk still has to come
	for _, l := range strings.Split(strings.TrimSuffix(diff, "\n"), "\n") {
		if oldLeft > 0 || newLeft > 0 {
			h := &hunks[len(hunks)-1]
			switch {
			case strings.HasPrefix(l, " "):
				oldLeft, newLeft = oldLeft-1, newLeft-1
			case strings.HasPrefix(l, "-"):
				oldLeft--
			case strings.HasPrefix(l, "+"):
				newLeft--
			case strings.HasPrefix(l, `\`):
				continue // "\ No newline at end of file"
			default:
				return nil, false
			}
			h.Lines = append(h.Lines, l)
			continue
		}
		if m := hunkHeader().FindStringSubmatch(l); m != nil {
			h := hunk{OldStart: atoi(m[1]), OldLines: count(m[2]), NewStart: atoi(m[3]), NewLines: count(m[4]), Lines: []string{}}
			hunks = append(hunks, h)
			oldLeft, newLeft = h.OldLines, h.NewLines
			continue
		}
		if !strings.HasPrefix(l, "--- ") && !strings.HasPrefix(l, "+++ ") && !strings.HasPrefix(l, `\`) && l != "" {
			return nil, false
		}
	}
	return hunks, len(hunks) > 0 && oldLeft <= 0 && newLeft <= 0
}

// unifiedDiff writes Claude's structuredPatch of path as a unified diff;
// ok=false when it is not one.
func unifiedDiff(path string, patch gjson.Result) (string, bool) {
	if !patch.IsArray() {
		return "", false
	}
	var b strings.Builder
	ok := true
	patch.ForEach(func(_, h gjson.Result) bool {
		nums := [4]gjson.Result{member(h, "oldStart"), member(h, "oldLines"), member(h, "newStart"), member(h, "newLines")}
		for _, n := range nums {
			if n.Type != gjson.Number {
				ok = false
				return false
			}
		}
		if b.Len() == 0 {
			fmt.Fprintf(&b, "--- %s\n+++ %s\n", path, path)
		}
		fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@\n", nums[0].Int(), nums[1].Int(), nums[2].Int(), nums[3].Int())
		member(h, "lines").ForEach(func(_, l gjson.Result) bool {
			b.WriteString(l.String())
			b.WriteByte('\n')
			return true
		})
		return true
	})
	return b.String(), ok
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// count is a hunk header's line count: "" means 1.
func count(s string) int {
	if s == "" {
		return 1
	}
	return atoi(s)
}

// Helpers.

// carry adds the members of o that out does not have yet and that are not
// named in used, unchanged: what the other side has no name for still
// reaches the hook.
func carry(out protocol.Object, o gjson.Result, used ...string) protocol.Object {
	o.ForEach(func(k, v gjson.Result) bool {
		key := k.String()
		if _, have := out.Get(key); !have && !slices.Contains(used, key) {
			out = append(out, protocol.Field{Key: key, Value: json.RawMessage(v.Raw)})
		}
		return true
	})
	return out
}

// reportsError: Noora's tools report a failure as an "error" member.
func reportsError(r gjson.Result) bool {
	e := member(r, "error")
	return e.Exists() && e.Type != gjson.Null && e.String() != ""
}

// resultPath is the file a write or patch changed: the absolute path Noora
// reports, else the one it was called with.
func resultPath(r gjson.Result, args protocol.Object) string {
	if p := member(r, "resolved_path"); p.Type == gjson.String {
		return p.String()
	}
	return argString(args, "path")
}

// listOf is a JSON list and its length; "[]" for anything else.
func listOf(v gjson.Result) (json.RawMessage, int) {
	if !v.IsArray() {
		return json.RawMessage("[]"), 0
	}
	return json.RawMessage(v.Raw), len(v.Array())
}

// firstNumber is the first of vs that is a number, else fallback.
func firstNumber(fallback int, vs ...gjson.Result) json.RawMessage {
	for _, v := range vs {
		if v.Type == gjson.Number {
			return json.RawMessage(v.Raw)
		}
	}
	return protocol.Raw(fallback)
}

func nonEmptyLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

func encode(o protocol.Object) json.RawMessage {
	b, _ := o.MarshalJSON()
	return b
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
