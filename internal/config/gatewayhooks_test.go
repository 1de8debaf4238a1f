package config

import (
	"strings"
	"testing"
	"time"
)

func TestGatewayHooksBackgroundTimeout(t *testing.T) {
	tests := []struct {
		name    string
		yaml    string
		want    time.Duration
		warning string
	}{
		{"No section means the default", "hooks: {}\n", 30 * time.Second, ""},
		{"A timeout is read", "gateway_hooks:\n  background_timeout: 5\n", 5 * time.Second, ""},
		{"Zero means no background work is waited for", "gateway_hooks:\n  background_timeout: 0\n", 0, ""},
		{"Over the maximum is clamped", "gateway_hooks:\n  background_timeout: 301\n", 300 * time.Second, "gateway_hooks.background_timeout 301 is over the maximum; clamped to 300"},
		{"A word is the default", "gateway_hooks:\n  background_timeout: soon\n", 30 * time.Second, `gateway_hooks.background_timeout "soon" is not a whole number of seconds of at least 0; using 30`},
		{"A list is not a section", "gateway_hooks: [1]\n", 30 * time.Second, "gateway_hooks: expected a mapping"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse("config.yaml", []byte(tt.yaml))
			if err != nil {
				t.Fatal(err)
			}
			s, warnings := c.GatewayHooks()
			if s.BackgroundTimeout != tt.want {
				t.Errorf("got %v, want %v", s.BackgroundTimeout, tt.want)
			}
			var all []string
			for _, w := range warnings {
				all = append(all, w.String())
			}
			if got := strings.Join(all, "\n"); tt.warning == "" && got != "" || !strings.Contains(got, tt.warning) {
				t.Errorf("warnings %q, want %q", got, tt.warning)
			}
		})
	}
}
