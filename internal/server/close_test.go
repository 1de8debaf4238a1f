package server

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/noora-hooks/noora-hooks/internal/dispatch"

	"github.com/noora-hooks/noora-hooks/protocol"
)

// plainCloser is a Backend whose Close returns nothing, as the Engine's does.
type plainCloser struct{ closed *atomic.Int32 }

func (plainCloser) Fire(_ context.Context, event protocol.Event, kw protocol.Kwargs, _ string) dispatch.Report {
	return dispatch.Report{Combined: protocol.Combine(event.Name, kw, nil)}
}
func (plainCloser) Hooks() []byte      { return []byte("{}\n") }
func (plainCloser) AcceptsHooks() bool { return false }
func (p plainCloser) Close()           { p.closed.Add(1) }

func TestEveryReplacedGenerationIsClosedWhateverItsCloseReturns(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	var loaded, closed atomic.Int32
	load := func() (Backend, error) {
		loaded.Add(1)
		return plainCloser{closed: &closed}, nil
	}
	_, addr := start(t, Options{Load: load, Watch: []string{cfg}})
	for i := 1; i <= 10; i++ {
		if err := os.WriteFile(cfg, []byte(strings.Repeat("x", i)), 0o600); err != nil {
			t.Fatal(err)
		}
		request(t, addr, "POST", "/v1/events/pre_llm_call", "{}", nil)
	}
	if got, want := closed.Load(), loaded.Load()-1; got != want || loaded.Load() != 11 {
		t.Fatalf("%d generations loaded, %d closed; want 11 and 10 (every one but the current)", loaded.Load(), got)
	}
}
