package plugins

import (
	_ "embed"
	"strings"
)

// hostSource is the Python host (host.py): it imports a plugin package, calls
// register(ctx) and serves the plugin protocol. It ships inside the binary
// and runs with `python3 -c`, so nothing is written to disk to run it.
//
//go:embed host.py
var hostSource string

// DefaultPython is the interpreter for Python plugins when NOORA_PYTHON is unset.
const DefaultPython = "python3"

// Python returns the interpreter to run Python plugins and handler.py
// gateway hooks with: $NOORA_PYTHON, else python3.
func Python(getenv func(string) string) string {
	if p := strings.TrimSpace(getenv("NOORA_PYTHON")); p != "" {
		return p
	}
	return DefaultPython
}

// HostArgv is the command that runs the embedded host in mode "plugin" (a
// plugin package in dir) or "gateway" (a handler.py in dir).
func HostArgv(python, mode, dir, name string) []string {
	return []string{python, "-c", hostSource, mode, dir, name}
}
