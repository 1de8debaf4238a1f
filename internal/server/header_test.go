package server

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzASCIIJSON: a warning header is printable ASCII and decodes, as JSON,
// to the warning (invalid UTF-8 becomes U+FFFD, as Go strings range).
func FuzzASCIIJSON(f *testing.F) {
	for _, s := range []string{"", "plain", "quote \" and \\", "line\nbreak\ttab", "café ✓ 😀", "\x00\x7f\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v := asciiJSON(s)
		if strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 || r > 0x7e }) {
			t.Fatalf("asciiJSON(%q) = %q is not printable ASCII", s, v)
		}
		var back string
		if err := json.Unmarshal([]byte(v), &back); err != nil {
			t.Fatalf("asciiJSON(%q) = %q does not decode: %v", s, v, err)
		}
		// Ranging over s reads each invalid byte as U+FFFD; strings.Map does too.
		if want := strings.Map(func(r rune) rune { return r }, s); back != want {
			t.Fatalf("asciiJSON(%q) decodes to %q, want %q", s, back, want)
		}
	})
}
