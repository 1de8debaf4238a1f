package protocol

import "bytes"

// KwargsHint tells a caller whose payload was refused what it must be.
const KwargsHint = "the payload must be the event's keyword arguments as one JSON object, e.g. {\"tool_name\": \"terminal\", \"args\": {\"command\": \"ls\"}}"

// ParseKwargs reads an event's keyword arguments: one JSON object. Blank input
// means no kwargs. An error wraps ErrNotObject when the input is JSON of
// another kind.
func ParseKwargs(data []byte) (Kwargs, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return Kwargs{}, nil
	}
	return ParseObject(data)
}
