// Package lazy defers start-up work to first use: every exec runs the init
// of every package linked into noora-hooks, and most execs need little of it
// (docs/performance.md).
package lazy

import (
	"regexp"
	"sync"
)

// Regexp compiles expr on first use rather than at start-up. A bad
// expression panics on that use, as regexp.MustCompile would at init; tests
// reach every one.
func Regexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
