// Package paths expands the ~ of paths the user writes (config commands,
// --home, socket addresses), the same way everywhere.
package paths

import (
	"os"
	"path/filepath"
	"strings"
)

// ExpandTilde expands a leading "~" or "~/" to the user's home directory;
// other paths, and "~user", are returned as they are.
func ExpandTilde(p string) string {
	if p != "~" && !strings.HasPrefix(p, "~/") {
		return p
	}
	userHome, err := os.UserHomeDir()
	if err != nil {
		return p
	}
	return filepath.Join(userHome, p[1:])
}
