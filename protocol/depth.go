package protocol

import (
	"errors"
	"fmt"
)

// MaxDepth bounds how deeply arrays and objects may nest in any JSON that
// comes from outside: an event's kwargs, a hook's answer, a plugin's message,
// a Claude Code or Cursor payload. One bound for all, so that whatever passes
// one reader passes every writer after it: Go's encoder refuses more than
// 10,000 levels, and Python's json module (the agent's) stops near 1,000.
// Real payloads nest a few dozen levels; 512 leaves room for our own
// wrapping (payload, trace, combined answer) under both.
const MaxDepth = 512

// ErrTooDeep marks JSON that nests deeper than MaxDepth. A hook answer that
// does is unusable (SPEC §4): a warning, or a block under fail_closed.
var ErrTooDeep = errors.New("JSON nests too deeply")

// CheckDepth returns an error wrapping ErrTooDeep when data nests arrays or
// objects deeper than MaxDepth. It only counts brackets outside strings, in
// one pass without recursion, so it is safe to run before any parser; it does
// not validate the JSON.
func CheckDepth(data []byte) error {
	depth, inString, escaped := 0, false, false
	for _, c := range data {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			depth++
			if depth > MaxDepth {
				return fmt.Errorf("%w: more than %d levels of arrays and objects", ErrTooDeep, MaxDepth)
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return nil
}
