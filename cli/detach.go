package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/noora-hooks/noora-hooks/internal/config"
	"github.com/noora-hooks/noora-hooks/internal/selfexec"
)

// detachLogLimit bounds the log of detached runs: a log over it is renamed
// to <log>.1 (replacing the one before) when the next run starts, so at most
// about twice this is kept.
const detachLogLimit = 4 << 20

// detachSelf runs noora-hooks again, as `noora-hooks <args...> --detached`
// with this run's --home, --config and --accept-hooks, in a detached process
// that outlives this one (runner.Detach): stdin is handed to it whole, and
// its stderr goes to <home>/logs/<logName>. `exec --detach` and `gateway emit
// --background` both take this path.
func detachSelf(g *Globals, paths config.Paths, args []string, stdin []byte, cwd, logName string, env *Env) error {
	argv := append(args, "--detached", "--home", paths.Home, "--config", paths.Config)
	if g.AcceptHooks {
		argv = append(argv, "--accept-hooks")
	}
	logPath := ""
	logDir := filepath.Join(paths.Home, "logs")
	if err := os.MkdirAll(logDir, 0o700); err == nil {
		logPath = filepath.Join(logDir, logName)
		rotate(logPath, detachLogLimit)
	} else {
		env.Warnf("cannot create %s, so the detached run's log is discarded: %v", logDir, err)
	}
	_, err := selfexec.Start(argv, selfexec.Options{Dir: cwd, Env: env.Environ(), Stdin: stdin, Log: logPath})
	return err
}

// rotate moves path to path.1 when it is over limit bytes. Two detached runs
// that rotate at once lose nothing but the older half: good enough for a log.
func rotate(path string, limit int64) {
	if st, err := os.Stat(path); err == nil && st.Size() > limit {
		_ = os.Rename(path, path+".1")
	}
}

// detachedEnv is the environment of a detached child: no result on stdout
// (nobody reads it), and every line of stderr (its log) stamped with the time
// and what the run was, for the shared log file.
func detachedEnv(env *Env, what string) *Env {
	out := *env
	out.Stdout = io.Discard
	out.Stderr = &stampWriter{w: env.Stderr, now: env.Now, what: what}
	return &out
}

// stampWriter prefixes every line with a UTC time and a label. Lines are
// written whole, one Write at a time, so that the lines of concurrent writers
// (plugin logs) and of concurrent detached runs (O_APPEND) do not interleave.
type stampWriter struct {
	w    io.Writer
	now  func() time.Time
	what string

	mu      sync.Mutex
	partial []byte // an unfinished line, at most stampLineLimit bytes
}

// stampLineLimit bounds an unfinished line kept between writes.
const stampLineLimit = 64 << 10

func (s *stampWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			room := stampLineLimit - len(s.partial)
			s.partial = append(s.partial, p[:min(len(p), max(room, 0))]...)
			break
		}
		line := append(s.partial, p[:i]...)
		s.partial = nil
		p = p[i+1:]
		if _, err := fmt.Fprintf(s.w, "%s %s: %s\n", s.now().UTC().Format(time.RFC3339), s.what, line); err != nil {
			return n, err
		}
	}
	return n, nil
}

// Flush writes an unfinished last line.
func (s *stampWriter) Flush() {
	s.mu.Lock()
	partial := s.partial
	s.partial = nil
	s.mu.Unlock()
	if len(partial) > 0 {
		_, _ = s.Write(append(partial, '\n'))
	}
}
