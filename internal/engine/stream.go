package engine

import (
	"github.com/noora-hooks/noora-hooks/protocol"
)

// Filtered reports whether an event reaches no hook by the configuration:
// a reasoning delta (on_stream_delta of kind "reasoning") without
// plugins.stream_reasoning_deltas: true, as the Noora guide has it.
func (e *Engine) Filtered(event protocol.Event, kw protocol.Kwargs) bool {
	return !e.Config.Plugins.StreamReasoningDeltas && protocol.ReasoningDelta(event.Name, kw)
}
