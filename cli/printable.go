package cli

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// printable escapes what a terminal would act on rather than show: C0
// control characters other than newline and tab (ESC starts the sequences
// that move the cursor, retitle the window or rewrite what the user reads; a
// carriage return overwrites the line), DEL, C1 controls (U+0080 to U+009F;
// U+009B is a one-character ESC [) and bytes that are not UTF-8 (a lone 0x9b
// is that CSI on a terminal that is not in UTF-8). Hook output, response
// bodies and command lines reach the user through it: a hook must not be able
// to hide a warning, or dress up what an approval prompt shows.
func printable(s string) string {
	if isPrintable(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r >= 0x80 && r <= 0x9f:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func isPrintable(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 || c == 0x7f || (c < 0x20 && c != '\n' && c != '\t') {
			if c < 0x80 {
				return false
			}
			// Multi-byte: decode to tell C1 controls and bad bytes from text.
			r, size := utf8.DecodeRuneInString(s[i:])
			if (r == utf8.RuneError && size <= 1) || (r >= 0x80 && r <= 0x9f) {
				return false
			}
			i += size - 1
		}
	}
	return true
}

// printableWriter passes what is written through printable: stderr, where
// warnings quote hooks' stderr, is always read by a human. fmt writes each
// message in one call, so no character is split between writes.
type printableWriter struct{ w io.Writer }

func (p printableWriter) Write(b []byte) (int, error) {
	s := string(b)
	if isPrintable(s) {
		return p.w.Write(b)
	}
	if _, err := io.WriteString(p.w, printable(s)); err != nil {
		return 0, err
	}
	return len(b), nil
}
