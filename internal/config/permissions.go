package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// Permission problems (SPEC §1): a file that decides what runs, or a
// directory that holds such files, must not be writable by other users.
// World-writable is refused; group-writable is a warning, since many systems
// give each user a group of their own.

// ErrUnsafePermissions marks a file refused for its mode.
var ErrUnsafePermissions = errors.New("unsafe permissions")

// PermissionProblem is one file whose mode lets others change it (or, for a
// token, read it).
type PermissionProblem struct {
	What string // "config", "allowlist", "home", "hook script", "token file"
	Path string
	Mode fs.FileMode
	// Refused: the file is not used (world-writable, or a token others can
	// read or that is too short); otherwise it is a warning.
	Refused bool
	why     string
	fix     string
}

func (p *PermissionProblem) Error() string {
	if p.Refused {
		return fmt.Sprintf("%v: refusing %s %s: %s; fix it with: %s", ErrUnsafePermissions, p.What, p.Path, p.why, p.fix)
	}
	return fmt.Sprintf("%s %s %s; if that group is not yours alone, fix it with: %s", p.What, p.Path, p.why, p.fix)
}

// Unwrap lets errors.Is find ErrUnsafePermissions in a refusal.
func (p *PermissionProblem) Unwrap() error {
	if p.Refused {
		return ErrUnsafePermissions
	}
	return nil
}

// CheckWritable looks at the mode of path (following links: the file that is
// read is what matters). It returns nil when only its owner can write it, or
// when it does not exist. It checks mode bits, not access(2): root can write
// anything, but what matters is who else can.
func CheckWritable(what, path string) *PermissionProblem {
	st, err := os.Stat(path)
	if err != nil {
		return nil
	}
	mode := st.Mode().Perm()
	p := &PermissionProblem{What: what, Path: path, Mode: mode}
	switch {
	case mode&0o002 != 0:
		p.Refused = true
		p.why = fmt.Sprintf("it is world-writable (mode %04o): anyone on this machine can change it", mode)
		p.fix = "chmod o-w " + path
	case mode&0o020 != 0:
		p.why = fmt.Sprintf("is group-writable (mode %04o): members of its group can change it", mode)
		p.fix = "chmod g-w " + path
	default:
		return nil
	}
	return p
}

// MinTokenBytes is the shortest bearer token serve accepts on TCP: 32 bytes,
// 256 bits when random.
const MinTokenBytes = 32

// CheckToken checks a TCP bearer token file: only its owner may read or
// write it, and the token holds at least MinTokenBytes bytes.
func CheckToken(path, token string) *PermissionProblem {
	st, err := os.Stat(path)
	if err != nil {
		return nil
	}
	mode := st.Mode().Perm()
	p := &PermissionProblem{What: "token file", Path: path, Mode: mode, Refused: true}
	switch {
	case mode&0o077 != 0:
		p.why = fmt.Sprintf("others can read or change it (mode %04o): only its owner may", mode)
		p.fix = "chmod 600 " + path
	case len(token) < MinTokenBytes:
		p.why = fmt.Sprintf("the token is %d bytes: it must have at least %d", len(token), MinTokenBytes)
		p.fix = "head -c 32 /dev/urandom | base64 > " + path
	default:
		return nil
	}
	return p
}
