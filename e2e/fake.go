package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
)

// fakeModel answers the model APIs of the three agents on one local port,
// offline, the way a model that wants one shell command would: the first
// request that offers the agent's shell tool gets a call of it; a request
// that carries the tool's result gets the text "done"; anything else (titles,
// routing, checks) gets "ok" or the smallest object its JSON schema allows.
// Claude Code can be asked for a list of its tools' calls instead.
type fakeModel struct {
	command string // the shell command the model asks for
	// claudeCalls, when set, are the tool calls the model asks Claude Code
	// for instead, one per turn, in order: the request that carries n tool
	// results gets call n, and once all have results, "done".
	claudeCalls []toolCall
	srv         *http.Server
	addr        string
	// page serves one web page over https, for WebFetch, which fetches
	// https only.
	page *httptest.Server

	mu       sync.Mutex
	requests []fakeRequest
}

// toolCall is one call of a Claude Code tool, by its name and tool_input.
type toolCall struct {
	Name  string
	Input map[string]any
}

// fakeRequest is one model request, as the checks need it.
type fakeRequest struct {
	Path        string
	Body        string // at most maxBody bytes
	OffersShell bool
	Answer      string // tool_call, final, side, json
}

// maxBody bounds a recorded request body; the checks look for short markers.
const maxBody = 4 << 20

func startFake(command string, claudeCalls []toolCall) (*fakeModel, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("fake model: listen: %w", err)
	}
	f := &fakeModel{command: command, claudeCalls: claudeCalls, addr: ln.Addr().String()}
	f.srv = &http.Server{Handler: f}
	go f.srv.Serve(ln) //nolint:errcheck // ends with Close
	f.page = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><body><h1>E2E page</h1><p>Fetched.</p></body></html>\n")
	}))
	return f, nil
}

func (f *fakeModel) Close() {
	f.srv.Close()
	f.page.Close()
}

func (f *fakeModel) URL() string { return "http://" + f.addr }

// PageURL is the web page's address: https, with a certificate no one
// trusts.
func (f *fakeModel) PageURL() string { return f.page.URL + "/page" }

// Requests returns what the agent asked so far.
func (f *fakeModel) Requests() []fakeRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fakeRequest(nil), f.requests...)
}

func (f *fakeModel) record(r fakeRequest) {
	f.mu.Lock()
	f.requests = append(f.requests, r)
	f.mu.Unlock()
}

func (f *fakeModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, maxBody))
	path := r.URL.Path
	var req map[string]any
	_ = json.Unmarshal(body, &req)
	switch {
	case r.Method != http.MethodPost:
		if strings.HasSuffix(path, "/models") {
			writeJSON(w, map[string]any{"object": "list", "data": []any{}, "models": []any{}})
			return
		}
		writeJSON(w, map[string]any{})
	case strings.HasSuffix(path, "/v1/messages/count_tokens"):
		writeJSON(w, map[string]any{"input_tokens": 100})
	case strings.HasSuffix(path, "/v1/messages"):
		f.anthropic(w, path, string(body), req)
	case strings.HasPrefix(path, "/v1beta/models/"):
		f.gemini(w, path, string(body), req)
	case strings.HasSuffix(path, "/responses"):
		f.openai(w, path, string(body), req)
	default:
		w.WriteHeader(http.StatusNotFound)
		writeJSON(w, map[string]any{"error": map[string]any{"message": "fake model: unknown path " + path}})
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func writeSSE(w http.ResponseWriter, data []byte) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = w.Write(data)
}

// Anthropic Messages API (Claude Code).
func (f *fakeModel) anthropic(w http.ResponseWriter, path, body string, req map[string]any) {
	offers, searches := false, false
	for _, t := range list(req["tools"]) {
		m, _ := t.(map[string]any)
		offers = offers || m["name"] == "Bash"
		searches = searches || m["name"] == "web_search"
	}
	calls := f.claudeCalls
	if len(calls) == 0 {
		calls = []toolCall{{Name: "Bash", Input: map[string]any{"command": f.command, "description": "e2e"}}}
	}
	results := toolResults(req)
	var blocks []map[string]any
	kind, stop := "side", "end_turn"
	switch {
	case results >= len(calls):
		kind, blocks = "final", []map[string]any{{"type": "text", "text": "done"}}
	case offers && !strings.Contains(firstMessage(req), prompt):
		// A subagent (the Agent tool's): it has nothing to do.
		kind, blocks = "final", []map[string]any{{"type": "text", "text": "done"}}
	case offers:
		kind, stop = "tool_call", "tool_use"
		c := calls[results]
		blocks = []map[string]any{{"type": "tool_use", "id": fmt.Sprintf("toolu_e2e%d", results+1), "name": c.Name, "input": c.Input}}
	case searches:
		// WebSearch asks a model that has the server-side search tool;
		// it searches once and finds one page.
		blocks = []map[string]any{
			{"type": "server_tool_use", "id": "srvtoolu_e2e1", "name": "web_search", "input": map[string]any{"query": "e2e"}},
			{"type": "web_search_tool_result", "tool_use_id": "srvtoolu_e2e1", "content": []any{map[string]any{
				"type": "web_search_result", "title": "E2E page", "url": "https://example.com/e2e", "encrypted_content": "", "page_age": nil}}},
			{"type": "text", "text": "E2E page is the one result."},
		}
	default:
		blocks = []map[string]any{{"type": "text", "text": "ok"}}
	}
	f.record(fakeRequest{Path: path, Body: body, OffersShell: offers, Answer: kind})
	msg := map[string]any{"id": "msg_e2e", "type": "message", "role": "assistant", "model": req["model"],
		"content": blocks, "stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 10, "output_tokens": 5}}
	if req["stream"] != true {
		writeJSON(w, msg)
		return
	}
	var b bytes.Buffer
	ev := func(name string, data map[string]any) {
		data["type"] = name
		j, _ := json.Marshal(data)
		fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", name, j)
	}
	start := map[string]any{}
	for k, v := range msg {
		start[k] = v
	}
	start["content"], start["stop_reason"] = []any{}, nil
	ev("message_start", map[string]any{"message": start})
	for i, blk := range blocks {
		switch blk["type"] {
		case "text":
			ev("content_block_start", map[string]any{"index": i, "content_block": map[string]any{"type": "text", "text": ""}})
			ev("content_block_delta", map[string]any{"index": i, "delta": map[string]any{"type": "text_delta", "text": blk["text"]}})
		case "tool_use", "server_tool_use":
			ev("content_block_start", map[string]any{"index": i, "content_block": map[string]any{"type": blk["type"], "id": blk["id"], "name": blk["name"], "input": map[string]any{}}})
			in, _ := json.Marshal(blk["input"])
			ev("content_block_delta", map[string]any{"index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(in)}})
		default: // a server tool's result comes whole
			ev("content_block_start", map[string]any{"index": i, "content_block": blk})
		}
		ev("content_block_stop", map[string]any{"index": i})
	}
	ev("message_delta", map[string]any{"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 5}})
	ev("message_stop", map[string]any{})
	writeSSE(w, b.Bytes())
}

// toolResults counts the tool_result blocks in a Messages API request: how
// many of the model's calls have been answered.
func toolResults(req map[string]any) int {
	n := 0
	for _, m := range list(req["messages"]) {
		msg, _ := m.(map[string]any)
		for _, b := range list(msg["content"]) {
			if blk, ok := b.(map[string]any); ok && blk["type"] == "tool_result" {
				n++
			}
		}
	}
	return n
}

// firstMessage is the text of a Messages API request's first message: the
// prompt the conversation started from.
func firstMessage(req map[string]any) string {
	msgs := list(req["messages"])
	if len(msgs) == 0 {
		return ""
	}
	b, _ := json.Marshal(msgs[0])
	return string(b)
}

// Gemini API v1beta (Gemini CLI).
func (f *fakeModel) gemini(w http.ResponseWriter, path, body string, req map[string]any) {
	action := ""
	if i := strings.LastIndex(path, ":"); i >= 0 {
		action = path[i+1:]
	}
	switch action {
	case "countTokens":
		writeJSON(w, map[string]any{"totalTokens": 100})
		return
	case "embedContent":
		writeJSON(w, map[string]any{"embedding": map[string]any{"values": make([]float64, 8)}})
		return
	case "batchEmbedContents":
		writeJSON(w, map[string]any{"embeddings": []any{}})
		return
	}
	offers := false
	tools := list(req["tools"])
	for _, t := range tools {
		m, _ := t.(map[string]any)
		for _, fd := range list(m["functionDeclarations"]) {
			if d, ok := fd.(map[string]any); ok && d["name"] == "run_shell_command" {
				offers = true
			}
		}
	}
	gen, _ := req["generationConfig"].(map[string]any)
	var parts []map[string]any
	kind := "side"
	switch {
	case gen != nil && strings.HasPrefix(fmt.Sprint(gen["responseMimeType"]), "application/json"):
		schema, _ := gen["responseJsonSchema"].(map[string]any)
		if schema == nil {
			schema, _ = gen["responseSchema"].(map[string]any)
		}
		obj, _ := fromSchema(schema, 0).(map[string]any)
		if obj == nil {
			obj = map[string]any{}
		}
		if _, ok := obj["next_speaker"]; ok {
			obj["next_speaker"] = "user"
		}
		j, _ := json.Marshal(obj)
		kind, parts = "json", []map[string]any{{"text": string(j)}}
	case strings.Contains(body, `"functionResponse"`):
		kind, parts = "final", []map[string]any{{"text": "done"}}
	case offers:
		kind = "tool_call"
		parts = []map[string]any{{"functionCall": map[string]any{"id": "call_e2e1", "name": "run_shell_command",
			"args": map[string]any{"command": f.command, "description": "e2e"}}}}
	default:
		parts = []map[string]any{{"text": "ok"}}
	}
	f.record(fakeRequest{Path: path, Body: body, OffersShell: offers, Answer: kind})
	resp := map[string]any{
		"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
	}
	if action == "streamGenerateContent" {
		j, _ := json.Marshal(resp)
		writeSSE(w, []byte("data: "+string(j)+"\r\n\r\n"))
		return
	}
	writeJSON(w, resp)
}

// fromSchema is the smallest value a JSON schema accepts: the first enum
// value, the minimum number, empty lists, "fake" strings.
func fromSchema(s map[string]any, depth int) any {
	if s == nil || depth > 8 {
		return nil
	}
	if e := list(s["enum"]); len(e) > 0 {
		return e[0]
	}
	t := strings.ToLower(fmt.Sprint(s["type"]))
	if props, ok := s["properties"].(map[string]any); ok || t == "object" {
		out := map[string]any{}
		for k, v := range props {
			sub, _ := v.(map[string]any)
			out[k] = fromSchema(sub, depth+1)
		}
		return out
	}
	switch t {
	case "array":
		return []any{}
	case "integer", "number":
		if m, ok := s["minimum"].(float64); ok {
			return m
		}
		return 1
	case "boolean":
		return false
	}
	return "fake"
}

// OpenAI Responses API (Codex CLI).
func (f *fakeModel) openai(w http.ResponseWriter, path, body string, req map[string]any) {
	tool := ""
	for _, t := range list(req["tools"]) {
		m, _ := t.(map[string]any)
		name, _ := m["name"].(string)
		for _, shell := range []string{"exec_command", "shell_command", "shell"} {
			if name == shell && tool == "" {
				tool = name
			}
		}
	}
	item := func(text string) map[string]any {
		return map[string]any{"type": "message", "id": "msg_e2e", "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": text, "annotations": []any{}}}}
	}
	var output []map[string]any
	kind := "side"
	switch {
	case strings.Contains(body, `"function_call_output"`) || strings.Contains(body, `"custom_tool_call_output"`):
		kind, output = "final", []map[string]any{item("done")}
	case tool != "":
		var args map[string]any
		switch tool {
		case "exec_command":
			args = map[string]any{"cmd": f.command}
		case "shell":
			args = map[string]any{"command": []string{"bash", "-lc", f.command}}
		default:
			args = map[string]any{"command": f.command}
		}
		a, _ := json.Marshal(args)
		kind = "tool_call"
		output = []map[string]any{{"type": "function_call", "id": "fc_e2e1", "call_id": "call_e2e1",
			"name": tool, "arguments": string(a), "status": "completed"}}
	default:
		output = []map[string]any{item("ok")}
	}
	f.record(fakeRequest{Path: path, Body: body, OffersShell: tool != "", Answer: kind})
	resp := map[string]any{"id": "resp_e2e", "object": "response", "status": "completed", "model": req["model"],
		"output": output, "usage": map[string]any{"input_tokens": 10, "output_tokens": 5, "total_tokens": 15,
			"input_tokens_details": map[string]any{"cached_tokens": 0}, "output_tokens_details": map[string]any{"reasoning_tokens": 0}}}
	if req["stream"] != true {
		writeJSON(w, resp)
		return
	}
	var b bytes.Buffer
	seq := 0
	ev := func(name string, data map[string]any) {
		data["type"], data["sequence_number"] = name, seq
		seq++
		j, _ := json.Marshal(data)
		fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", name, j)
	}
	start := map[string]any{}
	for k, v := range resp {
		start[k] = v
	}
	start["status"], start["output"], start["usage"] = "in_progress", []any{}, nil
	ev("response.created", map[string]any{"response": start})
	for i, it := range output {
		added := map[string]any{}
		for k, v := range it {
			added[k] = v
		}
		added["status"] = "in_progress"
		if it["type"] == "message" {
			added["content"] = []any{}
			ev("response.output_item.added", map[string]any{"output_index": i, "item": added})
			part := it["content"].([]any)[0].(map[string]any)
			ev("response.content_part.added", map[string]any{"item_id": it["id"], "output_index": i, "content_index": 0,
				"part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}})
			ev("response.output_text.delta", map[string]any{"item_id": it["id"], "output_index": i, "content_index": 0, "delta": part["text"]})
			ev("response.output_text.done", map[string]any{"item_id": it["id"], "output_index": i, "content_index": 0, "text": part["text"]})
			ev("response.content_part.done", map[string]any{"item_id": it["id"], "output_index": i, "content_index": 0, "part": part})
		} else {
			added["arguments"] = ""
			ev("response.output_item.added", map[string]any{"output_index": i, "item": added})
			ev("response.function_call_arguments.delta", map[string]any{"item_id": it["id"], "output_index": i, "delta": it["arguments"]})
			ev("response.function_call_arguments.done", map[string]any{"item_id": it["id"], "output_index": i, "arguments": it["arguments"]})
		}
		ev("response.output_item.done", map[string]any{"output_index": i, "item": it})
	}
	ev("response.completed", map[string]any{"response": resp})
	writeSSE(w, b.Bytes())
}

func list(v any) []any {
	l, _ := v.([]any)
	return l
}
