package protocol_test

import (
	"fmt"

	"github.com/tidwall/gjson"

	"github.com/noora-hooks/noora-hooks/protocol"
)

// Two hooks answer one pre_tool_call: the first rewrites the command, the
// second blocks. Combine folds them in declaration order into the answer
// exec prints: a block wins.
func ExampleCombine() {
	kw, _ := protocol.ParseKwargs([]byte(`{"tool_name":"terminal","args":{"command":"rm -rf /"}}`))
	answers := []protocol.Answer{
		protocol.Read(protocol.PreToolCall, gjson.Parse(`{"action":"modify","args":{"command":"rm -rf ./build"}}`)),
		protocol.Read(protocol.PreToolCall, gjson.Parse(`{"action":"block","message":"no rm -rf"}`)),
	}
	b, _ := protocol.Combine(protocol.PreToolCall, kw, answers).MarshalJSON()
	fmt.Printf("%s\n", b)
	// Output: {"event":"pre_tool_call","action":"block","message":"no rm -rf"}
}

// A shell hook reads the SPEC §4 payload on stdin: the event, the tool, its
// input, and the other kwargs under "extra".
func ExamplePayload() {
	kw, _ := protocol.ParseKwargs([]byte(`{"tool_name":"terminal","args":{"command":"ls"},"session_id":"s1","task_id":"t1"}`))
	b, _ := protocol.Payload(protocol.PreToolCall, kw, "/work").MarshalJSON()
	fmt.Printf("%s\n", b)
	// Output: {"hook_event_name":"pre_tool_call","tool_name":"terminal","tool_input":{"command":"ls"},"session_id":"s1","cwd":"/work","extra":{"task_id":"t1"}}
}
