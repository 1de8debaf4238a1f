package runner

import "strings"

// Environ is the environment of a child: base, less every variable that
// changes names, then changes in order. A change is NAME=VALUE to set NAME,
// or a bare NAME to unset it. It is the one place every kind of hook builds
// its child's environment, so that a variable we set can never be shadowed
// by an earlier one of the caller's (getenv takes the first).
func Environ(base []string, changes ...string) []string {
	if len(changes) == 0 {
		return base
	}
	names := make(map[string]bool, len(changes))
	for _, c := range changes {
		name, _, _ := strings.Cut(c, "=")
		names[name] = true
	}
	out := make([]string, 0, len(base)+len(changes))
	for _, kv := range base {
		if name, _, _ := strings.Cut(kv, "="); !names[name] {
			out = append(out, kv)
		}
	}
	for _, c := range changes {
		if strings.Contains(c, "=") {
			out = append(out, c)
		}
	}
	return out
}
