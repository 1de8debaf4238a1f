package consent

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/google/shlex"
	"github.com/noora-hooks/noora-hooks/internal/paths"
)

// Binding is what an approval binds to (SPEC §5): the file the command's
// script resolves to where the hook runs, and a SHA-256 of its content. The
// same command text in another project, or the same file with other content,
// is another binding: an approval of one does not cover the other.
type Binding struct {
	// Script is the token of the command that names its script (see Script).
	Script string
	// Path is the file it resolves to: absolute, symlinks resolved; empty
	// when there is no such file.
	Path string
	// SHA256 is the hex digest of the file's content; empty when it cannot
	// be read (Err says why).
	SHA256 string
	// Mtime is the file's modification time; zero without a file.
	Mtime time.Time
	// Err is why the file could not be found or read.
	Err error
}

// Bind resolves the script of command the way the runner will find it for a
// hook running in cwd with the environment env: a leading ~ is the home
// directory; a relative path is relative to cwd; a program named without a
// "/" is looked up in env's PATH. Then it hashes the file.
func Bind(command, cwd string, env []string) Binding {
	tokens, err := shlex.Split(command)
	if err != nil || len(tokens) == 0 {
		tokens = strings.Fields(command)
	}
	b := Binding{Script: Script(command, func(string) ([]string, error) { return tokens, nil })}
	if b.Script == "" {
		b.Err = fmt.Errorf("command %q names no script", command)
		return b
	}
	p := paths.ExpandTilde(b.Script)
	switch {
	case !strings.Contains(p, "/") && len(tokens) > 0 && tokens[0] == b.Script:
		// The program itself: exec searches PATH for it.
		found, ok := searchPath(p, env)
		if !ok {
			b.Err = fmt.Errorf("%s is not in PATH", p)
			return b
		}
		p = found
	case !filepath.IsAbs(p):
		p = filepath.Join(cwd, p)
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		b.Err = fmt.Errorf("resolve script %s: %w", p, err)
		return b
	}
	if real, err = filepath.Abs(real); err != nil {
		b.Err = fmt.Errorf("resolve script %s: %w", p, err)
		return b
	}
	b.Path = real
	b.SHA256, b.Mtime, b.Err = hashFile(real)
	return b
}

// searchPath finds prog in the PATH of env as the runner does: the first
// executable regular file.
func searchPath(prog string, env []string) (string, bool) {
	pathEnv := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			pathEnv = v
		}
	}
	for _, dir := range filepath.SplitList(pathEnv) {
		if dir == "" {
			dir = "."
		}
		candidate := filepath.Join(dir, prog)
		if st, err := os.Stat(candidate); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return candidate, true
		}
	}
	return "", false
}

// hashCache remembers digests by the file's identity (device, inode, size,
// mtime and ctime): any write to a file changes its ctime, which no user can
// set back, so a hit is the same content. serve checks every hook of every
// event: without it each event would read every script again.
var hashCache = struct {
	sync.Mutex
	m map[string]cachedHash
}{m: map[string]cachedHash{}}

// maxCachedHashes bounds the cache; when full it starts over.
const maxCachedHashes = 4096

type cachedHash struct {
	id  fileID
	sum string
}

type fileID struct {
	dev, ino, size   uint64
	mtimeNs, ctimeNs int64
}

func idOf(st os.FileInfo) (fileID, bool) {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, false
	}
	return fileID{
		dev: uint64(sys.Dev), ino: uint64(sys.Ino), size: uint64(sys.Size),
		mtimeNs: st.ModTime().UnixNano(), ctimeNs: ctimeOf(sys),
	}, true
}

// hashFile returns the SHA-256 of path's content and its mtime. It streams
// the file through a fixed 32 KiB buffer (io.Copy), whatever its size.
func hashFile(path string) (string, time.Time, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", time.Time{}, fmt.Errorf("read script %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", time.Time{}, fmt.Errorf("read script %s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		return "", st.ModTime(), fmt.Errorf("read script %s: not a regular file", path)
	}
	id, cacheable := idOf(st)
	if cacheable {
		hashCache.Lock()
		c, ok := hashCache.m[path]
		hashCache.Unlock()
		if ok && c.id == id {
			return c.sum, st.ModTime(), nil
		}
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", st.ModTime(), fmt.Errorf("read script %s: %w", path, err)
	}
	sum := hex.EncodeToString(h.Sum(nil))
	if cacheable {
		hashCache.Lock()
		if len(hashCache.m) >= maxCachedHashes {
			clear(hashCache.m)
		}
		hashCache.m[path] = cachedHash{id: id, sum: sum}
		hashCache.Unlock()
	}
	return sum, st.ModTime(), nil
}

// Drift says why the approval a does not cover binding b, or "" when it
// does. An approval that recorded a file and a digest covers only that file
// with that content. An older entry that recorded only the script's mtime
// (before approvals were bound to content) drifts when the script is newer;
// one written by hand, with neither, cannot drift. A script that cannot be
// found is no drift: the hook cannot start, and doctor says so.
func (a Approval) Drift(b Binding) string {
	if a.ScriptSHA256 == "" {
		if b.Path == "" || a.ScriptMtime == "" {
			return ""
		}
		at, err := time.Parse(time.RFC3339Nano, a.ScriptMtime)
		if err != nil || !b.Mtime.After(at) {
			return ""
		}
		return fmt.Sprintf("%s changed since it was approved (modified %s, approved version from %s)", b.Script, textTime(b.Mtime), textTime(at))
	}
	switch {
	case b.Path == "":
		return ""
	case a.ScriptPath != "" && a.ScriptPath != b.Path:
		return fmt.Sprintf("%s is another file here: it resolves to %s, the approval is for %s", b.Script, b.Path, a.ScriptPath)
	case b.SHA256 == "":
		return fmt.Sprintf("%s cannot be read to compare it with the approved content: %v", b.Script, b.Err)
	case b.SHA256 != a.ScriptSHA256:
		return fmt.Sprintf("%s has other content than was approved (sha256 %s, approved %s)", b.Script, short(b.SHA256), short(a.ScriptSHA256))
	}
	return ""
}

func short(sum string) string {
	if len(sum) > 12 {
		return sum[:12]
	}
	return sum
}

func textTime(t time.Time) string {
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}
