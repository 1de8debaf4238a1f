package consent

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestRevokeEntries(t *testing.T) {
	const file = `{"approvals": [
  {"event": "pre_tool_call", "command": "./guard.sh"},
  {"event": "on_session_end", "command": "./log.sh", "note": "kept"},
  {"event": "post_tool_call", "command": "./guard.sh"}
]}`
	tests := []struct {
		name       string
		command    string
		wantEvents []string
		wantLeft   int
	}{
		{"Every event of the command goes, in file order", "./guard.sh", []string{"pre_tool_call", "post_tool_call"}, 1},
		{"A command that matches nothing removes nothing", "guard.sh", nil, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Store{Path: filepath.Join(t.TempDir(), "allowlist.json")}
			if err := os.WriteFile(s.Path, []byte(file), 0o600); err != nil {
				t.Fatal(err)
			}
			removed, err := s.RevokeEntries(tt.command)
			if err != nil {
				t.Fatal(err)
			}
			var events []string
			for _, a := range removed {
				events = append(events, a.Event)
			}
			if !slices.Equal(events, tt.wantEvents) {
				t.Errorf("removed %v, want %v", events, tt.wantEvents)
			}
			if left := len(s.Load().Approvals); left != tt.wantLeft {
				t.Errorf("%d approvals left, want %d", left, tt.wantLeft)
			}
		})
	}
}

func TestRevokeEntriesLeavesAnUnmatchedFileAlone(t *testing.T) {
	s := Store{Path: filepath.Join(t.TempDir(), "allowlist.json")}
	const hand = "{\"approvals\": [{\"event\": \"pre_tool_call\", \"command\": \"./guard.sh\"}]}\n"
	if err := os.WriteFile(s.Path, []byte(hand), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RevokeEntries("./other.sh"); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(s.Path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != hand {
		t.Errorf("the file was rewritten:\n%s", got)
	}
}
