package config

import (
	"strings"
	"testing"
	"time"
)

func warningsOf(c *Config) string {
	var ws []string
	for _, w := range c.Warnings {
		ws = append(ws, w.String())
	}
	return strings.Join(ws, "\n")
}

func TestStreamEntries(t *testing.T) {
	tests := []struct {
		name    string
		yaml    string
		stream  bool
		warning string
	}{
		{"Stream is off by default", "hooks:\n  on_stream_delta:\n    - command: tts\n", false, ""},
		{"A stream delta hook can be long-lived", "hooks:\n  on_stream_delta:\n    - command: tts\n      stream: true\n", true, ""},
		{"So can a stream start hook", "hooks:\n  on_stream_start:\n    - command: tts\n      stream: true\n", true, ""},
		{"And a stream end hook", "hooks:\n  on_stream_end:\n    - command: tts\n      stream: true\n", true, ""},
		{"False is plain mode", "hooks:\n  on_stream_delta:\n    - command: tts\n      stream: false\n", false, ""},
		{"A word is not a boolean", "hooks:\n  on_stream_delta:\n    - command: tts\n      stream: maybe\n", false, `config.yaml:4: on_stream_delta entry 1: stream must be true or false, got "maybe"; treated as false`},
		{"Interim messages are not a stream", "hooks:\n  on_interim_message:\n    - command: tts\n      stream: true\n", false, "on_interim_message entry 1: stream applies only to on_stream_start, on_stream_delta and on_stream_end; ignored"},
		{"Tool calls are not a stream", "hooks:\n  post_tool_call:\n    - command: tts\n      stream: true\n", false, "stream applies only to"},
		{"A dialect hook cannot stream", "hooks:\n  on_stream_delta:\n    - command: tts\n      dialect: claude\n      stream: true\n", false, "stream does not apply to a hook with dialect claude; ignored"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse("config.yaml", []byte(tt.yaml))
			if err != nil {
				t.Fatal(err)
			}
			if len(c.ShellHooks) != 1 {
				t.Fatalf("%d hooks, want 1 (warnings: %s)", len(c.ShellHooks), warningsOf(c))
			}
			if got := c.ShellHooks[0].Stream; got != tt.stream {
				t.Errorf("Stream = %v, want %v", got, tt.stream)
			}
			all := warningsOf(c)
			if tt.warning == "" && all != "" || !strings.Contains(all, tt.warning) {
				t.Errorf("warnings %q, want %q", all, tt.warning)
			}
		})
	}
}

func TestStreamSettings(t *testing.T) {
	tests := []struct {
		name      string
		yaml      string
		queue     int
		idle      time.Duration
		reasoning bool
		warning   string
	}{
		{"The defaults", "", 256, 60 * time.Second, false, ""},
		{"A queue size is read", "hooks_stream_queue_size: 1000\n", 1000, 60 * time.Second, false, ""},
		{"A queue of one is allowed", "hooks_stream_queue_size: 1\n", 1, 60 * time.Second, false, ""},
		{"A queue of zero is the default", "hooks_stream_queue_size: 0\n", 256, 60 * time.Second, false, `hooks_stream_queue_size "0" is not a whole number of at least 1; using 256`},
		{"A huge queue is clamped", "hooks_stream_queue_size: 1000000\n", 65536, 60 * time.Second, false, "hooks_stream_queue_size 1000000 is over the maximum; clamped to 65536"},
		{"An idle timeout is read", "hooks_stream_idle_timeout: 5\n", 256, 5 * time.Second, false, ""},
		{"A zero idle timeout is the default", "hooks_stream_idle_timeout: 0\n", 256, 60 * time.Second, false, "at least 1; using 60"},
		{"A long idle timeout is clamped", "hooks_stream_idle_timeout: 7200\n", 256, 3600 * time.Second, false, "clamped to 3600"},
		{"Reasoning deltas are an opt-in", "plugins:\n  stream_reasoning_deltas: true\n", 256, 60 * time.Second, true, ""},
		{"The opt-in reads true strings", "plugins:\n  stream_reasoning_deltas: \"yes\"\n", 256, 60 * time.Second, true, ""},
		{"Off stays off", "plugins:\n  stream_reasoning_deltas: false\n", 256, 60 * time.Second, false, ""},
		{"A list is not a switch", "plugins:\n  stream_reasoning_deltas: [true]\n", 256, 60 * time.Second, false, "plugins.stream_reasoning_deltas must be true or false; treated as false"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse("config.yaml", []byte(tt.yaml))
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Stream.QueueSize(); got != tt.queue {
				t.Errorf("QueueSize = %d, want %d", got, tt.queue)
			}
			if got := c.Stream.IdleTimeout(); got != tt.idle {
				t.Errorf("IdleTimeout = %v, want %v", got, tt.idle)
			}
			if got := c.Plugins.StreamReasoningDeltas; got != tt.reasoning {
				t.Errorf("StreamReasoningDeltas = %v, want %v", got, tt.reasoning)
			}
			all := warningsOf(c)
			if tt.warning == "" && all != "" || !strings.Contains(all, tt.warning) {
				t.Errorf("warnings %q, want %q", all, tt.warning)
			}
		})
	}
}
