package server

import (
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// AwaitBacklog waits, at most limit, until the kernel holds no connection
// for us that Serve has not accepted yet: after Unlink, no new caller can
// connect, so once the backlog is empty every caller that did connect is
// being served. A listening socket is readable exactly while its backlog
// holds a connection (poll(2)), on every Unix.
func (l *Listener) AwaitBacklog(limit time.Duration) {
	sc, ok := l.Listener.(syscall.Conn)
	if !ok {
		return
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return
	}
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		pending := false
		err := raw.Control(func(fd uintptr) {
			fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
			n, perr := unix.Poll(fds, 0)
			pending = perr == nil && n > 0 && fds[0].Revents&unix.POLLIN != 0
		})
		if err != nil || !pending {
			return
		}
		time.Sleep(time.Millisecond) // Serve's accept loop takes it
	}
}
