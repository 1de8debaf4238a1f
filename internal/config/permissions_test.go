package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckWritable(t *testing.T) {
	tests := []struct {
		name    string
		mode    os.FileMode
		want    string // fragment; "" for no problem
		refused bool
	}{
		{"a file only its owner can write is fine", 0o644, "", false},
		{"a group-writable file is a warning naming chmod g-w", 0o664, "chmod g-w", false},
		{"a world-writable file is refused naming chmod o-w", 0o666, "chmod o-w", true},
		{"world-writable wins over group-writable", 0o777, "world-writable (mode 0777)", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.yaml")
			if err := os.WriteFile(path, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(path, tt.mode); err != nil {
				t.Fatal(err)
			}
			p := CheckWritable("config", path)
			switch {
			case tt.want == "" && p != nil:
				t.Fatalf("problem %v, want none", p)
			case tt.want == "":
				return
			case p == nil:
				t.Fatalf("no problem, want one saying %q", tt.want)
			}
			if !strings.Contains(p.Error(), tt.want) || !strings.Contains(p.Error(), path) {
				t.Errorf("%q does not name %q and the file", p.Error(), tt.want)
			}
			if p.Refused != tt.refused || errors.Is(p, ErrUnsafePermissions) != tt.refused {
				t.Errorf("refused %v, want %v", p.Refused, tt.refused)
			}
		})
	}
	if p := CheckWritable("config", filepath.Join(t.TempDir(), "missing")); p != nil {
		t.Errorf("a missing file: %v", p)
	}
}

func TestCheckToken(t *testing.T) {
	long := strings.Repeat("k", MinTokenBytes)
	tests := []struct {
		name, token string
		mode        os.FileMode
		want        string
	}{
		{"an owner-only token of 32 bytes is fine", long, 0o600, ""},
		{"a token others can read is refused", long, 0o644, "chmod 600"},
		{"a token its group can read is refused", long, 0o640, "chmod 600"},
		{"a short token is refused", "short", 0o600, "the token is 5 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "token")
			if err := os.WriteFile(path, []byte(tt.token), 0o600); err != nil {
				t.Fatal(err)
			}
			os.Chmod(path, tt.mode)
			p := CheckToken(path, tt.token)
			switch {
			case tt.want == "" && p != nil:
				t.Errorf("problem %v, want none", p)
			case tt.want != "" && (p == nil || !strings.Contains(p.Error(), tt.want)):
				t.Errorf("problem %v, want one saying %q", p, tt.want)
			}
		})
	}
}
