package config

import (
	"strings"
	"testing"
	"time"
)

func TestPluginSettings(t *testing.T) {
	tests := []struct {
		name            string
		yaml            string
		callback, start time.Duration
		warning         string
	}{
		{"No section means the defaults", "hooks: {}\n", 30 * time.Second, 10 * time.Second, ""},
		{"An empty section means the defaults", "plugins:\n", 30 * time.Second, 10 * time.Second, ""},
		{"A callback timeout is read", "plugins:\n  hook_callback_timeout: 5\n", 5 * time.Second, 10 * time.Second, ""},
		{"Zero means no callback timeout", "plugins:\n  hook_callback_timeout: 0\n", 0, 10 * time.Second, ""},
		{"The maximum is kept", "plugins:\n  hook_callback_timeout: 600\n", 600 * time.Second, 10 * time.Second, ""},
		{"Over the maximum is clamped", "plugins:\n  hook_callback_timeout: 601\n", 600 * time.Second, 10 * time.Second, "plugins.hook_callback_timeout 601 is over the maximum; clamped to 600"},
		{"A negative timeout is the default", "plugins:\n  hook_callback_timeout: -1\n", 30 * time.Second, 10 * time.Second, `plugins.hook_callback_timeout "-1" is not a whole number of seconds of at least 0; using 30`},
		{"A word is the default", "plugins:\n  hook_callback_timeout: soon\n", 30 * time.Second, 10 * time.Second, "using 30"},
		{"A start timeout is read", "plugins:\n  start_timeout: 3\n", 30 * time.Second, 3 * time.Second, ""},
		{"A zero start timeout is refused", "plugins:\n  start_timeout: 0\n", 30 * time.Second, 10 * time.Second, "at least 1; using 10"},
		{"Other keys are left alone", "plugins:\n  some_future_key: true\n", 30 * time.Second, 10 * time.Second, ""},
		{"A list is not a section", "plugins: [a]\n", 30 * time.Second, 10 * time.Second, "plugins: expected a mapping"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse("config.yaml", []byte(tt.yaml))
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Plugins.CallbackTimeout(); got != tt.callback {
				t.Errorf("CallbackTimeout = %v, want %v", got, tt.callback)
			}
			if got := c.Plugins.StartTimeout(); got != tt.start {
				t.Errorf("StartTimeout = %v, want %v", got, tt.start)
			}
			var ws []string
			for _, w := range c.Warnings {
				ws = append(ws, w.String())
			}
			all := strings.Join(ws, "\n")
			if tt.warning == "" && all != "" || !strings.Contains(all, tt.warning) {
				t.Errorf("warnings %q, want %q", all, tt.warning)
			}
		})
	}
	var zero Config
	if zero.Plugins.CallbackTimeout() != DefaultCallbackTimeout {
		t.Error("a Config built by hand must have the default callback timeout")
	}
}
