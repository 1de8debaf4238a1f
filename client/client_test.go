package client

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestParseAddr(t *testing.T) {
	home, _ := os.UserHomeDir()
	tests := []struct {
		name    string
		in      string
		want    Addr
		wantErr bool
	}{
		{name: "A unix: address is a socket", in: "unix:/run/nh.sock", want: Addr{"unix", "/run/nh.sock"}},
		{name: "A bare absolute path is a socket", in: "/run/nh.sock", want: Addr{"unix", "/run/nh.sock"}},
		{name: "A relative path with ./ is a socket", in: "./nh.sock", want: Addr{"unix", "./nh.sock"}},
		{name: "A tilde path is expanded", in: "unix:~/nh.sock", want: Addr{"unix", filepath.Join(home, "nh.sock")}},
		{name: "Host and port is TCP", in: "127.0.0.1:7070", want: Addr{"tcp", "127.0.0.1:7070"}},
		{name: "An http URL is TCP", in: "http://127.0.0.1:7070", want: Addr{"tcp", "127.0.0.1:7070"}},
		{name: "An http URL with a slash is TCP", in: "http://localhost:7070/", want: Addr{"tcp", "localhost:7070"}},
		{name: "IPv6 loopback is TCP", in: "[::1]:7070", want: Addr{"tcp", "[::1]:7070"}},
		{name: "Blanks around are ignored", in: "  127.0.0.1:1  ", want: Addr{"tcp", "127.0.0.1:1"}},
		{name: "An empty address is refused", in: "", wantErr: true},
		{name: "unix: without a path is refused", in: "unix:", wantErr: true},
		{name: "An https URL is refused", in: "https://127.0.0.1:7070", wantErr: true},
		{name: "An http URL with a path is refused", in: "http://127.0.0.1:7070/v1", wantErr: true},
		{name: "A host without a port is refused", in: "127.0.0.1", wantErr: true},
		{name: "A word is refused", in: "socket", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseAddr(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParseAddr(%q) error %v, want error %v", tt.in, err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("ParseAddr(%q) = %+v, want %+v", tt.in, got, tt.want)
			}
		})
	}
}

func TestFireWithoutAServerIsUnavailable(t *testing.T) {
	for _, addr := range []Addr{
		{"unix", filepath.Join(t.TempDir(), "missing.sock")},
		{"tcp", "127.0.0.1:1"}, // nothing listens on port 1 of the loopback
	} {
		_, err := New(addr, "").Fire(context.Background(), "pre_tool_call", []byte(`{}`), FireOptions{})
		if !errors.Is(err, ErrUnavailable) {
			t.Errorf("%s: %v, want ErrUnavailable", addr, err)
		}
	}
}

func TestReadToken(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(content), 0o600)
		return p
	}
	tests := []struct {
		name, file, want string
		wantErr          bool
	}{
		{name: "A token with a newline is trimmed", file: write("ok", "abc123\n"), want: "abc123"},
		{name: "An empty file is refused", file: write("empty", " \n"), wantErr: true},
		{name: "A token with blanks inside is refused", file: write("two", "abc def"), wantErr: true},
		{name: "A huge file is refused", file: write("huge", string(make([]byte, 5000))), wantErr: true},
		{name: "A missing file is refused", file: filepath.Join(dir, "missing"), wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadToken(tt.file)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("ReadToken = %q, %v; want %q, error %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

// FuzzParseAddr: any input parses or is refused without panicking, and a
// parsed address reads back as itself.
func FuzzParseAddr(f *testing.F) {
	for _, s := range []string{"unix:/run/x.sock", "/a/b", "127.0.0.1:7070", "http://[::1]:1/", "unix:", "https://x:1", "~/s", "a:b:c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := ParseAddr(s)
		if err != nil {
			return
		}
		if a.Network != "unix" && a.Network != "tcp" {
			t.Fatalf("ParseAddr(%q) network %q", s, a.Network)
		}
		b, err := ParseAddr(a.String())
		if err != nil || b != a {
			t.Fatalf("ParseAddr(%q) = %+v, which reads back as %+v, %v", s, a, b, err)
		}
	})
}
