// Command noora-hooks-check runs hook tests; `noora-hooks check` hands over
// to it (docs/hook-tests.md). It is a program of its own so that exec, which
// starts for every tool call, does not pay testscript's start-up.
package main

import (
	"os"

	"github.com/noora-hooks/noora-hooks/internal/hooktest"
)

func main() {
	os.Exit(hooktest.Main(os.Args[1:], hooktest.OSEnv()))
}
