// Package paths expands the ~ of paths the user writes (config commands,
// --home, socket addresses), the same way everywhere.
package paths

import (
	"os"
	"path/filepath"
	"strings"
)

// ExpandTilde expands a leading "~" or "~/" to the user's home directory
// ($HOME); other paths, and "~user", are returned as they are.
func ExpandTilde(p string) string {
	home, _ := os.UserHomeDir()
	return ExpandTildeIn(p, home)
}

// ExpandTildeIn is ExpandTilde with home given (a command's own $HOME); an
// empty home leaves p as it is.
func ExpandTildeIn(p, home string) string {
	if home == "" || p != "~" && !strings.HasPrefix(p, "~/") {
		return p
	}
	return filepath.Join(home, p[1:])
}
