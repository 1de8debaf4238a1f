package server

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/noora-hooks/noora-hooks/client"
)

// maxSocketPath is the longest unix socket path Linux accepts (sun_path holds
// 108 bytes with the terminating NUL).
const maxSocketPath = 107

// ErrNotLoopback refuses a TCP address that other machines could reach.
var ErrNotLoopback = errors.New("not a loopback address")

// Listener is where the server answers, and what to clean up after.
type Listener struct {
	net.Listener
	// Address is the address actually listened on (with the port chosen for :0).
	Address client.Addr
	// socket is the path of our unix socket and its identity, removed on Close
	// only if it is still ours.
	socket string
	ino    uint64
}

// Close stops listening and removes our socket file.
func (l *Listener) Close() error {
	err := l.Listener.Close()
	l.Unlink()
	if errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}

// Unlink removes our socket file, if it is still ours, while connections
// already queued can still be accepted: new callers find nobody there.
func (l *Listener) Unlink() {
	if l.socket == "" {
		return
	}
	var st syscall.Stat_t
	if syscall.Stat(l.socket, &st) == nil && st.Ino == l.ino {
		_ = os.Remove(l.socket)
	}
}

// Listen opens addr. A unix socket gets mode 0600, a missing parent directory
// 0700; a stale socket left by a server that died is replaced, a live one is
// not. TCP must be loopback unless allowRemote.
func Listen(addr client.Addr, allowRemote bool) (*Listener, error) {
	if addr.Network == "tcp" {
		return listenTCP(addr, allowRemote)
	}
	return listenUnix(addr.Address)
}

func listenTCP(addr client.Addr, allowRemote bool) (*Listener, error) {
	host, _, err := net.SplitHostPort(addr.Address)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	if !allowRemote && !loopbackHost(host) {
		return nil, fmt.Errorf("listen on %s: %w; serve on 127.0.0.1 or ::1, or pass --allow-remote if other machines must reach it", addr, ErrNotLoopback)
	}
	l, err := net.Listen("tcp", addr.Address)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	return &Listener{Listener: l, Address: client.Addr{Network: "tcp", Address: l.Addr().String()}}, nil
}

// IsLoopback reports whether a is a unix socket or a loopback TCP address.
func IsLoopback(a client.Addr) bool {
	if a.Network == "unix" {
		return true
	}
	host, _, err := net.SplitHostPort(a.Address)
	return err == nil && loopbackHost(host)
}

func loopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func listenUnix(path string) (*Listener, error) {
	path, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("listen on unix:%s: %w", path, err)
	}
	if len(path) > maxSocketPath {
		return nil, fmt.Errorf("listen on unix:%s: the path is %d bytes, and a socket path holds at most %d; choose a shorter one with --listen unix:PATH", path, len(path), maxSocketPath)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("listen on unix:%s: %w", path, err)
	}
	if err := removeStale(path); err != nil {
		return nil, err
	}
	// The socket is created with the umask's mode, and anyone who can write
	// it can connect: create it 0600 from the start rather than chmod it
	// after a window. Nothing else creates files while serve starts.
	old := syscall.Umask(0o177)
	l, err := net.Listen("unix", path)
	syscall.Umask(old)
	if err != nil {
		return nil, fmt.Errorf("listen on unix:%s: %w", path, err)
	}
	ul := l.(*net.UnixListener)
	ul.SetUnlinkOnClose(false) // Close removes it only if it is still ours
	if err := os.Chmod(path, 0o600); err != nil {
		l.Close()
		return nil, fmt.Errorf("listen on unix:%s: %w", path, err)
	}
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		l.Close()
		return nil, fmt.Errorf("listen on unix:%s: %w", path, err)
	}
	return &Listener{
		Listener: l,
		Address:  client.Addr{Network: "unix", Address: path},
		socket:   path,
		ino:      st.Ino,
	}, nil
}

// removeStale removes a socket at path that nobody answers on. A live socket
// or another kind of file is an error: we never take over someone's server or
// delete a file we did not make.
func removeStale(path string) error {
	st, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("listen on unix:%s: %w", path, err)
	}
	if st.Mode()&os.ModeSocket == 0 {
		return fmt.Errorf("listen on unix:%s: the path exists and is not a socket; remove it or choose another with --listen unix:PATH", path)
	}
	conn, err := net.DialTimeout("unix", path, time.Second)
	if err == nil {
		conn.Close()
		return fmt.Errorf("listen on unix:%s: another server is answering there; stop it first, or choose another path with --listen unix:PATH", path)
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		return fmt.Errorf("listen on unix:%s: cannot tell whether the socket there is in use: %w", path, err)
	}
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("listen on unix:%s: remove the stale socket: %w", path, err)
	}
	return nil
}
