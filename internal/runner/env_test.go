package runner

import (
	"slices"
	"testing"
)

func TestEnviron(t *testing.T) {
	tests := []struct {
		name    string
		base    []string
		changes []string
		want    []string
	}{
		{"No change keeps the base as it is", []string{"A=1"}, nil, []string{"A=1"}},
		{"A variable set again replaces the caller's, at the end", []string{"A=1", "B=2"}, []string{"A=3"}, []string{"B=2", "A=3"}},
		{"Every copy of a variable is dropped, not only the first", []string{"A=1", "A=2", "B=2"}, []string{"A=3"}, []string{"B=2", "A=3"}},
		{"A bare name unsets the variable", []string{"A=1", "B=2"}, []string{"A"}, []string{"B=2"}},
		{"A value with = keeps its own = signs", nil, []string{"A=x=y"}, []string{"A=x=y"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Environ(tt.base, tt.changes...); !slices.Equal(got, tt.want) {
				t.Errorf("Environ(%q, %q) = %q, want %q", tt.base, tt.changes, got, tt.want)
			}
		})
	}
}
