package config

import (
	"cmp"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/noora-hooks/noora-hooks/protocol"
)

// Bounds of the streaming observer settings. The queue default is the Noora
// guide's; the caps keep one hook's memory bounded (a queued event holds its
// kwargs, which a host may fill with the whole assembled text at on_stream_end).
const (
	DefaultStreamQueueSize   = 256
	MaxStreamQueueSize       = 65536
	DefaultStreamIdleTimeout = 60 * time.Second
	MaxStreamIdleTimeout     = 3600 * time.Second
)

// StreamSettings are the top-level keys that shape how `serve` delivers the
// streaming family of observer events (on_stream_start, on_stream_delta,
// on_stream_end, on_interim_message). The zero value is the defaults.
type StreamSettings struct {
	queueSize   int
	idleTimeout time.Duration
}

// QueueSize is hooks_stream_queue_size: how many events each hook's queue
// holds before it drops its oldest.
func (s StreamSettings) QueueSize() int {
	return cmp.Or(s.queueSize, DefaultStreamQueueSize)
}

// IdleTimeout is hooks_stream_idle_timeout: how long the process of a
// `stream: true` hook may wait for its next line before it is closed, for
// hosts that never send on_stream_end.
func (s StreamSettings) IdleTimeout() time.Duration {
	return cmp.Or(s.idleTimeout, DefaultStreamIdleTimeout)
}

func (c *Config) parseStreamSetting(key string, n *yaml.Node) {
	switch key {
	case "hooks_stream_queue_size":
		c.Stream.queueSize = int(c.wholeNumber(n, key, "", 1, DefaultStreamQueueSize, MaxStreamQueueSize))
	case "hooks_stream_idle_timeout":
		c.Stream.idleTimeout = c.seconds(n, key, 1, DefaultStreamIdleTimeout, MaxStreamIdleTimeout)
	}
}

// parseStreamEntry reads `stream:` of one hook entry: true makes the hook
// long-lived, fed one line per event of the stream. It applies to the stream
// lifecycle events only, and not to hooks written for another tool, whose
// protocol has no such mode.
func (c *Config) parseStreamEntry(where, event, dialect string, n *yaml.Node) bool {
	v, ok := boolValue(n)
	switch {
	case !ok:
		c.warn(n, "%s: stream must be true or false, got %q; treated as false", where, n.Value)
		return false
	case !v:
		return false
	case dialect != "":
		c.warn(n, "%s: stream does not apply to a hook with dialect %s; ignored", where, dialect)
		return false
	}
	if ev, _ := protocol.Lookup(event); !ev.StreamLifecycle() {
		c.warn(n, "%s: stream applies only to %s, %s and %s; ignored (the hook runs once per event)", where, protocol.OnStreamStart, protocol.OnStreamDelta, protocol.OnStreamEnd)
		return false
	}
	return true
}
