// Package selfexec runs noora-hooks again, in the background: the one way
// `exec --detach`, `gateway emit --background` and the outbound sender start
// a detached noora-hooks, and the one place that knows the command lines it
// takes for that. It never runs anything but this program.
package selfexec

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/noora-hooks/noora-hooks/internal/runner"
)

// Program is how to run this program again: argv[0] as we were started (made
// absolute when it is a relative path), which keeps the name a multi-call
// binary dispatches on; the executable's path when argv[0] is unusable.
func Program() string {
	arg0 := os.Args[0]
	if strings.Contains(arg0, "/") {
		if abs, err := filepath.Abs(arg0); err == nil {
			if st, err := os.Stat(abs); err == nil && !st.IsDir() {
				return abs
			}
		}
	} else if arg0 != "" {
		return arg0 // looked up in PATH, as the shell that started us did
	}
	if exe, err := os.Executable(); err == nil {
		return exe
	}
	return "noora-hooks"
}

// Options are what the detached run gets.
type Options struct {
	Dir   string
	Env   []string
	Stdin []byte // handed whole; nil: no input
	// Log receives its stdout and stderr (appended); "" discards them.
	Log string
	// ExtraFiles are inherited as fds 3, 4, ...
	ExtraFiles []*os.File
}

// Start runs `noora-hooks args...` detached: in its own session, outliving
// this process (runner.StartDetached). It returns its pid.
func Start(args []string, o Options) (int, error) {
	argv := append([]string{Program()}, args...)
	return runner.StartDetached(context.Background(), runner.Detached{
		Argv: argv, Dir: o.Dir, Env: o.Env, Stdin: o.Stdin, Log: o.Log, ExtraFiles: o.ExtraFiles,
	})
}

// SenderArgs is the command line of the outbound sender for home, which
// inherits the held sender lock as fd 3 (docs/outbound.md).
func SenderArgs(home string) []string {
	return []string{"--home", home, "outbound", "send", "--lock-fd", "3"}
}
