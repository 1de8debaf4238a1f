// Package protocol holds the vocabulary of noora-hooks: the event catalogue, the
// payload a hook receives and the answers it may give, and how answers combine
// (docs/spec.md §3, §4, §8). It is pure: it never spawns, reads files or logs, and it
// imports nothing of ours, so every other package can lean on it.
package protocol

import (
	"sort"
)

// Category says how the answers of several hooks of one event combine (SPEC §3).
type Category int

const (
	// Observer events ignore every answer.
	Observer Category = iota
	// Directive events let hooks steer the agent: block, approve, add context.
	Directive
	// Transform events let hooks replace a value.
	Transform
)

func (c Category) String() string {
	switch c {
	case Directive:
		return "directive"
	case Transform:
		return "transform"
	default:
		return "observer"
	}
}

// Event is one entry of the catalogue.
type Event struct {
	Name     string
	Category Category
}

// ToolScoped reports whether matchers apply to the event: only the tool-call
// events carry a tool_name that a matcher can test (SPEC §2).
func (e Event) ToolScoped() bool {
	return e.Name == PreToolCall || e.Name == PostToolCall
}

// Event names that code branches on.
const (
	PreToolCall                     = "pre_tool_call"
	PostToolCall                    = "post_tool_call"
	PreLLMCall                      = "pre_llm_call"
	PreVerify                       = "pre_verify"
	PreGatewayDispatch              = "pre_gateway_dispatch"
	TransformToolResult             = "transform_tool_result"
	TransformTerminalOutput         = "transform_terminal_output"
	TransformLLMOutput              = "transform_llm_output"
	PreTranscription                = "pre_transcription"
	TransformAPIErrorClassification = "transform_api_error_classification"
)

var catalogue = map[string]Category{
	PreToolCall:                     Directive,
	PreLLMCall:                      Directive,
	PreVerify:                       Directive,
	PreGatewayDispatch:              Directive,
	TransformToolResult:             Transform,
	TransformTerminalOutput:         Transform,
	TransformLLMOutput:              Transform,
	PreTranscription:                Transform,
	TransformAPIErrorClassification: Transform,
	PostToolCall:                    Observer,
	"post_llm_call":                 Observer,
	"pre_api_request":               Observer,
	"post_api_request":              Observer,
	"api_request_error":             Observer,
	"on_stream_start":               Observer,
	"on_stream_delta":               Observer,
	"on_stream_end":                 Observer,
	"on_interim_message":            Observer,
	"on_session_start":              Observer,
	"on_session_end":                Observer,
	"on_session_finalize":           Observer,
	"on_session_reset":              Observer,
	"on_skill_lifecycle":            Observer,
	"subagent_start":                Observer,
	"subagent_stop":                 Observer,
	"gateway_platform_event":        Observer,
	"pre_command":                   Observer,
	"pre_approval_request":          Observer,
	"post_approval_response":        Observer,
	"kanban_task_claimed":           Observer,
	"kanban_task_completed":         Observer,
	"kanban_task_blocked":           Observer,
	"on_kanban_worker_spawned":      Observer,
	"on_kanban_worker_exited":       Observer,
	"on_kanban_worker_stale_claim":  Observer,
	"on_kanban_task_updated":        Observer,
	"on_kanban_dispatch_tick":       Observer,
}

var sortedNames = func() []string {
	names := make([]string, 0, len(catalogue))
	for n := range catalogue {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}()

// Lookup finds an event by its exact name.
func Lookup(name string) (Event, bool) {
	c, ok := catalogue[name]
	if !ok {
		return Event{}, false
	}
	return Event{Name: name, Category: c}, true
}

// EventNames returns every valid event name, sorted. The slice is a copy.
func EventNames() []string {
	return append([]string(nil), sortedNames...)
}

// Closest returns the valid event most like name when it is close enough to be
// a likely typo: a similarity ratio of at least 0.6 (SPEC §2), the same cut-off
// as Python's difflib.get_close_matches that Noora users know.
func Closest(name string) (string, bool) {
	best, bestRatio := "", 0.0
	for _, candidate := range sortedNames {
		if r := similarity(name, candidate); r > bestRatio {
			best, bestRatio = candidate, r
		}
	}
	return best, bestRatio >= 0.6
}

// similarity is 2·LCS/(len(a)+len(b)) over bytes: 1 for equal strings, 0 for
// strings with nothing in common.
func similarity(a, b string) float64 {
	if len(a)+len(b) == 0 {
		return 1
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			switch {
			case a[i-1] == b[j-1]:
				cur[j] = prev[j-1] + 1
			case prev[j] >= cur[j-1]:
				cur[j] = prev[j]
			default:
				cur[j] = cur[j-1]
			}
		}
		prev, cur = cur, prev
	}
	return 2 * float64(prev[len(b)]) / float64(len(a)+len(b))
}
