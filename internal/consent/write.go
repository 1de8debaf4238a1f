//go:build unix

package consent

import "os"

// WriteAtomic replaces path with data the way the allowlist is written (temp
// file in the same directory, fsync, rename): readers see the old file or the
// new one, never half of it. `noora-hooks import --write` uses it for the
// config file.
func WriteAtomic(path string, data []byte, mode os.FileMode) error {
	return writeAtomic(path, data, mode)
}
