// Command go-guard is an example noora-hooks plugin written in Go: it speaks
// the plugin protocol (docs/plugin-protocol.md) on stdin/stdout with nothing
// but the standard library. It blocks terminal commands that contain a
// denied word, and adds a system prompt section that says so.
//
// Install it as a plugin:
//
//	mkdir -p ~/.noora/plugins/go-guard
//	go build -o ~/.noora/plugins/go-guard/go-guard ./examples/plugins/go-guard
//	cp examples/plugins/go-guard/plugin.yaml ~/.noora/plugins/go-guard/
//
// GO_GUARD_DENY lists the denied words, comma-separated (default "rm -rf,mkfs").
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"strings"
)

// maxRequest is the longest request line noora-hooks sends (the protocol's limit).
const maxRequest = 64<<20 + 64<<10

type request struct {
	Type        string          `json:"type"`
	ID          int64           `json:"id"`
	Hook        string          `json:"hook"`
	Callback    int             `json:"callback"`
	Kwargs      json.RawMessage `json:"kwargs"`
	Section     string          `json:"section"`
	SessionInfo map[string]any  `json:"session_info"`
}

type toolCall struct {
	ToolName string         `json:"tool_name"`
	Args     map[string]any `json:"args"`
}

func main() {
	log.SetFlags(0) // stderr is the plugin's log
	deny := strings.Split(envOr("GO_GUARD_DENY", "rm -rf,mkfs"), ",")
	out := json.NewEncoder(os.Stdout) // one JSON value per line
	must(out.Encode(map[string]any{
		"type": "hello", "protocol": 1,
		"hooks":    []map[string]string{{"event": "pre_tool_call", "callback": "guard"}},
		"sections": []map[string]any{{"id": "go-guard.rules", "position": "after_memory", "max_chars": 1000}},
	}))

	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<10), maxRequest)
	for in.Scan() { // stdin closed: a clean shutdown
		var req request
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			log.Printf("ignoring a request that is not JSON: %v", err)
			continue
		}
		switch req.Type {
		case "invoke":
			var call toolCall
			if err := json.Unmarshal(req.Kwargs, &call); err != nil {
				must(out.Encode(map[string]any{"type": "error", "id": req.ID, "error": "bad kwargs: " + err.Error()}))
				continue
			}
			must(out.Encode(map[string]any{"type": "result", "id": req.ID, "value": guard(call, deny)}))
		case "section":
			text := fmt.Sprintf("Terminal commands containing any of %q are blocked by the go-guard plugin.", deny)
			must(out.Encode(map[string]any{"type": "result", "id": req.ID, "value": text}))
		default:
			must(out.Encode(map[string]any{"type": "error", "id": req.ID, "error": "unknown request type " + req.Type}))
		}
	}
	if err := in.Err(); err != nil {
		log.Fatalf("read requests: %v", err)
	}
}

// guard blocks a terminal command that contains a denied word; any other
// call gets no answer (null).
func guard(call toolCall, deny []string) any {
	if call.ToolName != "terminal" {
		return nil
	}
	cmd, _ := call.Args["command"].(string)
	for _, d := range deny {
		if d = strings.TrimSpace(d); d != "" && strings.Contains(cmd, d) {
			log.Printf("blocked %q", cmd)
			return map[string]string{"action": "block", "message": fmt.Sprintf("go-guard: %q is not allowed here", d)}
		}
	}
	return nil
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

func must(err error) {
	if err != nil {
		log.Fatalf("write to noora-hooks: %v", err)
	}
}
