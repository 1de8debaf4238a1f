package runner

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// ErrInterpreter classifies a script that exists but cannot start because of
// its #! line: the interpreter it names is missing, or the line ends in \r.
// The system reports both as "no such file", which would otherwise read as
// "program not found: <the script>" (SPEC §4).
var ErrInterpreter = errors.New("script cannot start")

// shebangLimit is how much of a script's first line is read: Linux reads at
// most 256 bytes of it (BINPRM_BUF_SIZE).
const shebangLimit = 256

// ShebangProblem reads the #! line of the script at path and says what keeps
// it from starting with the environment env: a line ending in \r (CRLF line
// endings), or an interpreter that does not exist (an absolute path that is
// missing, or the program /usr/bin/env is asked for that is not in env's
// PATH). It returns nil for a file without a #! line, or one whose
// interpreter is found. doctor calls it; Run calls it when the system says a
// script it found does not exist.
func ShebangProblem(path string, env []string) error {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	buf := make([]byte, shebangLimit)
	n, _ := io.ReadFull(f, buf)
	buf = buf[:n]
	if !bytes.HasPrefix(buf, []byte("#!")) {
		return nil
	}
	line := buf[2:]
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	if bytes.HasSuffix(line, []byte("\r")) {
		return fmt.Errorf("%w: %s: its #! line ends in \\r (Windows CRLF line endings), so the system looks for an interpreter named %q; convert the file to LF line endings (dos2unix %s)",
			ErrInterpreter, path, strings.TrimSpace(strings.TrimSuffix(string(line), "\r"))+"\\r", path)
	}
	fields := strings.Fields(string(line))
	if len(fields) == 0 {
		return nil
	}
	interp := fields[0]
	if _, err := os.Stat(interp); err != nil {
		return fmt.Errorf("%w: %s: its interpreter %s (from its #! line) does not exist", ErrInterpreter, path, interp)
	}
	if filepath.Base(interp) == "env" && len(fields) > 1 && !strings.HasPrefix(fields[1], "-") && !strings.Contains(fields[1], "=") {
		if _, err := lookPath(fields[1], env); err != nil && !strings.Contains(fields[1], "/") {
			return fmt.Errorf("%w: %s: its interpreter %s (from its #! line: %s) is not in PATH", ErrInterpreter, path, fields[1], strings.TrimSpace(string(line)))
		}
	}
	return nil
}
