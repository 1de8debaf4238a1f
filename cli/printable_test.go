package cli

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestPrintable(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain text is left alone", "hook failed: exit 1", "hook failed: exit 1"},
		{"newlines and tabs stay", "a\n\tb", "a\n\tb"},
		{"text in other scripts stays", "échec: ファイル", "échec: ファイル"},
		{"an escape sequence is shown, not obeyed", "\x1b[2Jclear", `\x1b[2Jclear`},
		{"a carriage return cannot overwrite the line", "bad\rgood", `bad\rgood`},
		{"a bell and a delete are shown", "\a\x7f", `\x07\x7f`},
		{"a C1 control (one-character CSI) is shown", "\u009b31m", `\u009b31m`},
		{"a byte that is not UTF-8 is shown", "a\x9bb", `a\x9bb`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := printable(tt.in); got != tt.want {
				t.Errorf("printable(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func FuzzPrintable(f *testing.F) {
	for _, s := range []string{"plain", "\x1b]0;title\x07", "\u009b", "\xff\xfe", "a\r\nb"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := printable(s)
		if !utf8.ValidString(got) {
			t.Fatalf("printable(%q) = %q is not UTF-8", s, got)
		}
		for _, r := range got {
			if (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f) {
				t.Fatalf("printable(%q) = %q keeps control %U", s, got, r)
			}
		}
		if isPrintable(s) != (got == s) {
			t.Fatalf("isPrintable(%q) = %v, but printable changed it: %v", s, isPrintable(s), got != s)
		}
		if strings.Count(got, "\n") != strings.Count(s, "\n") {
			t.Fatalf("printable(%q) changed the lines", s)
		}
	})
}
