//go:build unix

package runner

// LookPath resolves a program the way Run does for a child whose environment
// is env: a name holding "/" is used as it is, any other is searched in env's
// PATH. Errors wrap ErrNotFound or ErrNotExecutable. doctor uses it to check a
// hook's program without running it.
func LookPath(prog string, env []string) (string, error) {
	return lookPath(prog, env)
}
