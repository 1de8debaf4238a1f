package compat

import (
	"fmt"
	"strings"

	"github.com/noora-hooks/noora-hooks/internal/runner"
)

// DialectMessage is what a dialect hook that exited 2 says, for the model:
// its whole trimmed stderr, as Claude Code passes it on ("stderr is fed back
// to Claude"), not Noora's first 400 characters (SPEC §4). The bound is the
// runner's stderr bound (runner.StderrLimit, 64 KiB); past it the message
// says it was cut.
func DialectMessage(out runner.Outcome) string {
	msg := strings.TrimSpace(string(out.Stderr))
	if out.StderrTruncated && msg != "" {
		msg += fmt.Sprintf(" [stderr cut at %d KiB]", runner.StderrLimit>>10)
	}
	return msg
}
