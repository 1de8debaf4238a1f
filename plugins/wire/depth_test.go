package wire

import (
	"errors"
	"strings"
	"testing"

	"github.com/noora-hooks/noora-hooks/protocol"
)

func TestAMessageNestingTooDeeplyIsAProtocolViolation(t *testing.T) {
	bomb := strings.Repeat("[", 10001) + strings.Repeat("]", 10001)
	_, err := Parse([]byte(`{"type":"result","id":1,"value":{"action":"modify","args":{"a":` + bomb + `}}}`))
	if !errors.Is(err, ErrProtocol) || !errors.Is(err, protocol.ErrTooDeep) {
		t.Fatalf("Parse: %v, want a protocol violation for nesting", err)
	}
}
