package server

import (
	"errors"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// stamp is what tells us a file changed without reading it: size, times and
// identity (an editor that saves by renaming gives a new inode). A missing
// file has the zero stamp.
type stamp struct {
	exists       bool
	dev, ino     uint64
	size         int64
	mtime, ctime int64 // nanoseconds
}

func statFile(path string) stamp {
	// x/sys/unix names the times Mtim and Ctim on every Unix (syscall
	// calls them Mtimespec on macOS and the BSDs).
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return stamp{}
	}
	return stamp{
		exists: true,
		dev:    uint64(st.Dev),
		ino:    uint64(st.Ino),
		size:   int64(st.Size),
		mtime:  st.Mtim.Nano(),
		ctime:  st.Ctim.Nano(),
	}
}

func statAll(paths []string) []stamp {
	out := make([]stamp, len(paths))
	for i, p := range paths {
		out[i] = statFile(p)
	}
	return out
}

// refresh builds a new Backend when a watched file changed since it was last
// looked at, which it does at most once per CheckEvery (the one event that
// wins the compare-and-swap looks; the others go on). A load that fails keeps
// the last good Backend and says why in the log.
func (s *Server) refresh() {
	if every := int64(s.opts.CheckEvery); every > 0 {
		now, last := time.Now().UnixNano(), s.lastCheck.Load()
		if now-last < every || !s.lastCheck.CompareAndSwap(last, now) {
			return
		}
	}
	if s.unchanged() {
		return
	}
	s.reloadMu.Lock()
	defer s.reloadMu.Unlock()
	if s.unchanged() { // another request reloaded meanwhile
		return
	}
	before := *s.seen.Load()
	stamps := statAll(s.opts.Watch)
	var changed []string
	for i, p := range s.opts.Watch {
		if stamps[i] != before[i] {
			changed = append(changed, p)
		}
	}
	b, err := s.opts.Load()
	s.seen.Store(&stamps)
	if err != nil {
		s.logf("error: reload after %s changed: %v; still serving the last good configuration", strings.Join(changed, " and "), err)
		return
	}
	old := s.cur.Swap(&generation{backend: b})
	old.retire()
	s.logf("reloaded: %s changed", strings.Join(changed, " and "))
}

// unchanged reports whether every watched file still has the stamp last seen.
func (s *Server) unchanged() bool {
	seen := *s.seen.Load()
	for i, p := range s.opts.Watch {
		if statFile(p) != seen[i] {
			return false
		}
	}
	return true
}

// generation is one Backend and the events using it, so that a Backend that
// holds processes is closed only once it is replaced and idle.
type generation struct {
	backend Backend
	mu      sync.Mutex
	refs    int
	retired bool
}

// acquire returns the current generation, counted as in use until release.
func (s *Server) acquire() *generation {
	for {
		g := s.cur.Load()
		g.mu.Lock()
		if !g.retired {
			g.refs++
			g.mu.Unlock()
			return g
		}
		// Retired between Load and Lock: cur already holds its successor.
		g.mu.Unlock()
	}
}

func (g *generation) release() {
	g.mu.Lock()
	g.refs--
	done := g.retired && g.refs == 0
	g.mu.Unlock()
	if done {
		g.close()
	}
}

// retire marks g replaced; it is closed once its last event is done.
func (g *generation) retire() {
	g.mu.Lock()
	already := g.retired
	g.retired = true
	done := !already && g.refs == 0
	g.mu.Unlock()
	if done {
		g.close()
	}
}

// close closes the Backend when it holds anything: an io.Closer, or a
// Close without a result (the Engine's). Missing the second once left every
// plugin process of every replaced generation running.
func (g *generation) close() {
	switch c := g.backend.(type) {
	case io.Closer:
		_ = c.Close()
	case interface{ Close() }:
		c.Close()
	}
}

// isDir reports whether path is a directory, or why not.
func isDir(path string) (bool, error) {
	st, err := os.Stat(path)
	if err != nil {
		return false, err
	}
	if !st.IsDir() {
		return false, errors.New("not a directory")
	}
	return true, nil
}
