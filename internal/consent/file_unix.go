//go:build unix

package consent

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/google/shlex"

	"github.com/noora-hooks/noora-hooks/internal/config"
	"github.com/noora-hooks/noora-hooks/internal/runner"
)

// lock takes an exclusive flock on path, creating it, and returns the unlock.
func lock(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock allowlist: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock allowlist %s: %w", path, err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// writeAtomic replaces path with data: temp file in the same directory, fsync,
// rename, fsync of the directory. Readers see the old file or the new one.
func writeAtomic(path string, data []byte, mode os.FileMode) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// ScriptMtime is the modification time of a command's script (see Script),
// looked up in PATH when it names no directory.
func ScriptMtime(command string) (time.Time, error) {
	script := config.ExpandTilde(Script(command, shlex.Split))
	if filepath.Base(script) == script {
		if p, err := runner.LookPath(script, os.Environ()); err == nil {
			script = p
		}
	}
	st, err := os.Stat(script)
	if err != nil {
		return time.Time{}, err
	}
	return st.ModTime(), nil
}
