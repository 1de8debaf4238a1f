package engine

import (
	"testing"

	"github.com/noora-hooks/noora-hooks/internal/config"
)

func TestTrialTool(t *testing.T) {
	tests := []struct {
		name, matcher string
		want          string // "" means the synthetic terminal tool
	}{
		{"No matcher keeps the terminal tool", "", ""},
		{"A matcher that accepts terminal keeps it", "terminal|patch", ""},
		{"A matcher for other tools gives the first it names", "write_file|patch", "write_file"},
		{"An alternative that is a pattern is passed over for a plain name", "write_.+|patch", "patch"},
		{"A pattern with no plain name keeps the terminal tool", "web_.*", ""},
		{"A literal matcher that is not a valid regexp is used as it is", "[oops", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := config.ShellHook{Event: "pre_tool_call"}
			if tt.matcher != "" {
				h.Matcher = config.NewMatcher(tt.matcher)
			}
			got, ok := TrialTool(h)
			if got != tt.want || ok != (tt.want != "") {
				t.Errorf("TrialTool(%q) = %q, %v; want %q", tt.matcher, got, ok, tt.want)
			}
		})
	}
}
