package cli

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestReadAnswer(t *testing.T) {
	tests := []struct {
		name, input string
		want        []string // answers in order, then io.EOF
	}{
		{"A line is one answer", "y\n", []string{"y"}},
		{"Each line is the next answer", "y\nno\n\n", []string{"y", "no", ""}},
		{"A last line without a newline still counts", "yes", []string{"yes"}},
		{"Nothing typed is the end of input", "", nil},
		{"A long line keeps only its first 64 bytes", strings.Repeat("n", 100) + "\ny\n", []string{strings.Repeat("n", maxAnswer), "y"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := bufio.NewReader(strings.NewReader(tt.input))
			for i, want := range tt.want {
				got, err := readAnswer(r)
				if err != nil || got != want {
					t.Fatalf("answer %d: got %q, %v; want %q", i+1, got, err, want)
				}
			}
			if got, err := readAnswer(r); !errors.Is(err, io.EOF) {
				t.Errorf("after the answers: got %q, %v; want io.EOF", got, err)
			}
		})
	}
}

func FuzzReadAnswer(f *testing.F) {
	f.Add([]byte("y\n"))
	f.Add([]byte("YES\r\nn\n"))
	f.Add([]byte("\x04"))
	f.Add([]byte(strings.Repeat("x", 1000)))
	f.Fuzz(func(t *testing.T, input []byte) {
		r := bufio.NewReader(strings.NewReader(string(input)))
		for n := 0; n <= len(input); n++ {
			got, err := readAnswer(r)
			if err != nil {
				return
			}
			if len(got) > maxAnswer {
				t.Fatalf("answer of %d bytes, over the %d bound", len(got), maxAnswer)
			}
			if strings.Contains(got, "\n") {
				t.Fatalf("answer %q holds a newline", got)
			}
		}
		t.Fatalf("readAnswer never reached the end of %d bytes", len(input))
	})
}

func TestExcerpt(t *testing.T) {
	long := strings.Repeat("é", outputLimit+1)
	tests := []struct {
		name      string
		out       string
		truncated bool
		want      string
		wantMore  bool
	}{
		{"Short output is kept whole", "hello\n", false, "hello\n", false},
		{"Output over 400 characters is cut at 400 characters, not bytes", long, false, strings.Repeat("é", outputLimit), true},
		{"Output the runner already cut says so", "abc", true, "abc", true},
		{"Invalid UTF-8 is shown as replacement characters", "a\xffb", false, "a\uFFFDb", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, more := excerpt([]byte(tt.out), tt.truncated)
			if got != tt.want || more != tt.wantMore {
				t.Errorf("excerpt = %q, %v; want %q, %v", got, more, tt.want, tt.wantMore)
			}
		})
	}
}

func TestOneLine(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"A single line is unchanged", "exit 1", "exit 1"},
		{"Line breaks are written as \\n", "Traceback:\n  File x\r\nError\n", `Traceback:\n  File x\nError`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := oneLine(tt.in); got != tt.want {
				t.Errorf("oneLine(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestShellQuote(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"A plain path is single-quoted", "/usr/local/bin/noora-hooks", "'/usr/local/bin/noora-hooks'"},
		{"Blanks stay inside the quotes", "/opt/my tools/noora-hooks", "'/opt/my tools/noora-hooks'"},
		{"A single quote is closed, escaped and reopened", "/home/o'brien/bin/noora-hooks", `'/home/o'\''brien/bin/noora-hooks'`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := shellQuote(tt.in); got != tt.want {
				t.Errorf("shellQuote(%q) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}
