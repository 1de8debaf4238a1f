package compat

import (
	"regexp"
	"strings"
	"sync"

	"github.com/noora-hooks/noora-hooks/internal/lazy"
)

// plainNames is a matcher made only of names and "|": Claude Code compares
// those exactly ("Write" is the Write tool, not NotebookWrite).
var plainNames = lazy.Regexp(`^[A-Za-z0-9_|]+$`)

// compiled caches matchers' regular expressions (nil: does not compile); a
// config holds few, and they are asked again on every event. Bounded: past
// maxCompiled patterns, new ones are compiled each time and not kept.
var (
	compiledMu sync.Mutex
	compiled   = map[string]*regexp.Regexp{}
)

const maxCompiled = 1024

// Match applies Claude Code's matcher rules (Hooks reference, "Matcher
// patterns"): "*" or empty matches everything; names joined by "|" match
// exactly; anything else is a regular expression that may match anywhere in
// the subject (unlike Noora's matchers, which must match the whole tool
// name). Claude evaluates JavaScript regular expressions; this uses Go's
// RE2, which lacks lookaround and backreferences: such a pattern does not
// compile and is compared literally, the way Noora treats a bad matcher.
// Cursor's matchers follow the same rules.
func Match(pattern, subject string) bool {
	p := strings.TrimSpace(pattern)
	if p == "" || p == "*" {
		return true
	}
	if plainNames().MatchString(p) {
		for _, name := range strings.Split(p, "|") {
			if name == subject {
				return true
			}
		}
		return false
	}
	re := compileMatcher(p)
	if re == nil {
		return p == subject
	}
	return re.MatchString(subject)
}

// MatcherCompiles reports whether a matcher is a plain name list or a
// regular expression Go can run; the importer warns about the others.
func MatcherCompiles(pattern string) bool {
	p := strings.TrimSpace(pattern)
	return p == "" || p == "*" || plainNames().MatchString(p) || compileMatcher(p) != nil
}

func compileMatcher(p string) *regexp.Regexp {
	compiledMu.Lock()
	defer compiledMu.Unlock()
	if re, ok := compiled[p]; ok {
		return re
	}
	re, err := regexp.Compile(p)
	if err != nil {
		re = nil
	}
	if len(compiled) < maxCompiled {
		compiled[p] = re
	}
	return re
}
