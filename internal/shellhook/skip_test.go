package shellhook

import (
	"context"
	"strings"
	"testing"

	"github.com/noora-hooks/noora-hooks/internal/config"
	"github.com/noora-hooks/noora-hooks/internal/dispatch"
	"github.com/noora-hooks/noora-hooks/protocol"
)

func TestSelectSaysWhyAHookDoesNotRun(t *testing.T) {
	entry := func(matcher, command, dialect string) config.ShellHook {
		h := config.ShellHook{Event: "pre_tool_call", Command: command, Dialect: dialect, File: "c.yaml", Line: 3}
		if matcher != "" {
			h.Matcher = config.NewMatcher(matcher)
		}
		return h
	}
	tests := []struct {
		name    string
		entry   config.ShellHook
		kwargs  string
		refuse  bool
		reason  dispatch.SkipReason
		details []string
	}{
		{"a matcher that does not match shows both sides", entry("patch", "x", ""), `{"tool_name":"terminal"}`, false, dispatch.SkipMatcher, []string{`"patch"`, `"terminal"`}},
		{"a matcher with no tool in the call says so", entry("patch", "x", ""), `{}`, false, dispatch.SkipMatcher, []string{"has none"}},
		{"a matcher that is not a regexp says it is compared as text", entry("(x", "x", ""), `{"tool_name":"y"}`, false, dispatch.SkipMatcher, []string{"compared as text"}},
		{"a hook consent refuses is not approved", entry("", "x", ""), `{"tool_name":"terminal"}`, true, dispatch.SkipNotApproved, []string{"allowlist"}},
		{"a dialect that is missing skips its hook", entry("", "x", "claude"), `{}`, false, dispatch.SkipDialect, []string{`"claude" is not available`}},
		{"a hook that runs has no skip", entry("terminal", "x", ""), `{"tool_name":"terminal"}`, false, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kw, err := protocol.ParseKwargs([]byte(tt.kwargs))
			if err != nil {
				t.Fatal(err)
			}
			src := &ShellSource{Entries: []config.ShellHook{tt.entry}}
			if tt.refuse {
				src.Consent = func(config.ShellHook, dispatch.Call) (Verdict, string) { return Skip, "refused" }
			}
			_, skips := src.Select(context.Background(), dispatch.Call{Event: protocol.Event{Name: "pre_tool_call"}, Kwargs: kw})
			if tt.reason == "" {
				if len(skips) != 0 {
					t.Fatalf("skips = %+v, want none", skips)
				}
				return
			}
			if len(skips) != 1 || skips[0].Reason != tt.reason || skips[0].Where != "c.yaml:3" {
				t.Fatalf("skips = %+v, want one %s at c.yaml:3", skips, tt.reason)
			}
			for _, d := range tt.details {
				if !strings.Contains(skips[0].Detail, d) {
					t.Errorf("detail %q does not say %q", skips[0].Detail, d)
				}
			}
		})
	}
}
