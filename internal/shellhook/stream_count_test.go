//go:build unix

package shellhook

import (
	"context"
	"testing"
	"time"

	"github.com/noora-hooks/noora-hooks/internal/dispatch"
)

func TestAQueueCountsTheStreamLinesThatWereWrittenNotThoseTried(t *testing.T) {
	dir := t.TempDir()
	// The process exits at once: lines after that cannot be written.
	hook := &StreamHook{Config: streamEntry("on_stream_delta", `sh -c 'exit 0'`), Streams: &Streams{}}
	defer hook.Streams.Close(time.Second)
	f := &dispatch.Fanout{QueueSize: 4096}
	const events = 200
	call := streamCall(t, dir, "on_stream_delta", `{"session_id":"s"}`)
	// Lines until one finds the process gone; every later line of the
	// session is dropped.
	waitFor(t, "the stream process ended", func() bool { return hook.Run(context.Background(), call).NotDelivered })
	for range events {
		f.Enqueue(call, []dispatch.Hook{hook})
	}
	stats := f.Close(time.Minute)
	if len(stats) != 1 {
		t.Fatalf("stats %+v", stats)
	}
	s := stats[0]
	if s.Delivered+s.Dropped != events {
		t.Fatalf("delivered %d + dropped %d, want %d in all", s.Delivered, s.Dropped, events)
	}
	if s.Delivered != 0 {
		t.Fatalf("delivered %d, dropped %d: lines the ended process never read were counted as delivered", s.Delivered, s.Dropped)
	}
}
