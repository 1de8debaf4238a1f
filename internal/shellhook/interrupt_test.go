//go:build unix

package shellhook

import (
	"context"
	"testing"
	"time"

	"github.com/noora-hooks/noora-hooks/internal/dispatch"

	"github.com/noora-hooks/noora-hooks/internal/config"
	"github.com/noora-hooks/noora-hooks/protocol"
)

func TestAnInterruptedHookNeverReadsAsGoAhead(t *testing.T) {
	// The hook prints an approve, then waits: what it printed before the
	// interruption is not its answer.
	const cmd = `sh -c 'echo "{\"action\":\"approve\"}"; exec sleep 30'`
	for _, tc := range []struct {
		name       string
		failClosed bool
		want       protocol.Kind
	}{
		{"a fail_closed hook that is interrupted blocks", true, protocol.Block},
		{"any other hook that is interrupted gives no answer", false, protocol.None},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &ShellHook{Config: config.ShellHook{Event: protocol.PreToolCall, Command: cmd, Timeout: 60 * time.Second, FailClosed: tc.failClosed}}
			ctx, cancel := context.WithCancel(context.Background())
			go func() { time.Sleep(300 * time.Millisecond); cancel() }()
			start := time.Now()
			res := h.Run(ctx, dispatch.Call{Event: mustEvent(t, protocol.PreToolCall), Cwd: t.TempDir(), Env: []string{"PATH=/usr/bin:/bin"}})
			if took := time.Since(start); took > 10*time.Second {
				t.Fatalf("the interrupted hook took %v to end", took)
			}
			if res.Answer.Kind != tc.want || res.Status != dispatch.StatusError {
				t.Fatalf("answer %v, status %s; want %v, error", res.Answer.Kind, res.Status, tc.want)
			}
		})
	}
}
