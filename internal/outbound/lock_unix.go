//go:build unix

package outbound

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// openLock opens (creating) a lock file, and its directory when missing.
func openLock(path, dir string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if errors.Is(err, os.ErrNotExist) {
		if err = os.MkdirAll(dir, 0o700); err == nil {
			f, err = os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("open lock %s: %w", path, err)
	}
	return f, nil
}

func flock(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

const lockExclusive = syscall.LOCK_EX

// SenderLock is the lock that makes one sender the only one (SPEC §7). It is
// an flock: the kernel drops it when its holder dies however it dies, so a
// sender that crashed never keeps the next one from starting.
type SenderLock struct {
	path, dir string
	f         *os.File
}

// TryLockSender takes the sender lock if it is free; nil when another
// process holds it.
func (s Spool) TryLockSender() (*SenderLock, error) {
	l := &SenderLock{path: s.senderLock(), dir: s.Dir}
	ok, err := l.try()
	if err != nil || !ok {
		return nil, err
	}
	return l, nil
}

// LockSender waits for the sender lock until ctx ends; waiting is called
// once, first, when another process holds it.
func (s Spool) LockSender(ctx context.Context, waiting func(pid int)) (*SenderLock, error) {
	l := &SenderLock{path: s.senderLock(), dir: s.Dir}
	if err := l.wait(ctx, waiting); err != nil {
		return nil, err
	}
	return l, nil
}

// AdoptSenderLock takes over a held lock inherited as f (see EnsureSender). It
// checks that f is this spool's lock file; ok is false when it is not.
func (s Spool) AdoptSenderLock(f *os.File) (*SenderLock, bool) {
	var a, b syscall.Stat_t
	if syscall.Fstat(int(f.Fd()), &a) != nil || syscall.Stat(s.senderLock(), &b) != nil || a.Dev != b.Dev || a.Ino != b.Ino {
		return nil, false
	}
	// Taking it again through the same open file is a no-op that proves we hold it.
	if flock(f, syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		return nil, false
	}
	return &SenderLock{path: s.senderLock(), dir: s.Dir, f: f}, true
}

func (l *SenderLock) try() (bool, error) {
	f, err := openLock(l.path, l.dir)
	if err != nil {
		return false, err
	}
	err = flock(f, syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		f.Close()
		return false, nil
	}
	if err != nil {
		f.Close()
		return false, fmt.Errorf("lock %s: %w", l.path, err)
	}
	l.f = f
	return true, nil
}

// lockPoll is how often a waiting drain retries the sender lock.
const lockPoll = 50 * time.Millisecond

func (l *SenderLock) wait(ctx context.Context, waiting func(pid int)) error {
	told := false
	for {
		ok, err := l.try()
		if err != nil || ok {
			return err
		}
		if !told && waiting != nil {
			told = true
			pid, _ := readPID(l.path)
			waiting(pid)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(lockPoll):
		}
	}
}

// File is the open lock file, to hand to a child that takes the lock over.
func (l *SenderLock) File() *os.File { return l.f }

// WritePID records the holder's pid, for `outbound status`.
func (l *SenderLock) WritePID(pid int) {
	if l.f == nil {
		return
	}
	_ = l.f.Truncate(0)
	_, _ = l.f.WriteAt([]byte(strconv.Itoa(pid)+"\n"), 0)
}

// Unlock clears the pid and releases the lock. The lock is released even when
// a child still has the file open.
func (l *SenderLock) Unlock() {
	if l.f == nil {
		return
	}
	_ = l.f.Truncate(0)
	_ = flock(l.f, syscall.LOCK_UN)
	l.f.Close()
	l.f = nil
}

// Release closes our copy of the lock file without unlocking it: the child we
// handed it to holds the lock now.
func (l *SenderLock) Release() {
	if l.f != nil {
		l.f.Close()
		l.f = nil
	}
}

// Relock takes the lock again after Unlock: at once when wait is false (false
// when another holds it), else waiting until ctx ends.
func (l *SenderLock) Relock(ctx context.Context, wait bool) bool {
	if !wait {
		ok, err := l.try()
		return err == nil && ok
	}
	return l.wait(ctx, nil) == nil
}

func readPID(path string) (int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(data)))
}

// SenderPID returns the pid of the running sender, or 0. It reads the pid the
// sender wrote and checks that the process lives: taking the lock to find out
// could make an exec believe a sender is running when none is.
func (s Spool) SenderPID() int {
	pid, err := readPID(s.senderLock())
	if err != nil || pid <= 0 {
		return 0
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return 0
	}
	// A sender that was killed may stay a zombie until its new parent reaps
	// it; where /proc tells, a zombie is not running.
	if stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
		if _, state, ok := strings.Cut(string(stat), ") "); ok && strings.HasPrefix(state, "Z") {
			return 0
		}
	}
	return pid
}
