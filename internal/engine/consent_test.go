package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/noora-hooks/noora-hooks/internal/dispatch"

	"github.com/noora-hooks/noora-hooks/protocol"
)

// manyHooksEngine is an engine with an accept channel on and n shell hooks on
// pre_tool_call, none approved yet.
func manyHooksEngine(tb testing.TB, n int) (*Engine, dispatch.Call) {
	tb.Helper()
	home := tb.TempDir()
	var cfg strings.Builder
	cfg.WriteString("hooks:\n  pre_tool_call:\n")
	for i := range n {
		fmt.Fprintf(&cfg, "    - command: %s/hooks/hook-%d.sh\n", home, i)
	}
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(cfg.String()), 0o600); err != nil {
		tb.Fatal(err)
	}
	eng, err := Load(Options{Home: home, AcceptHooks: true, Getenv: func(string) string { return "" }, Environ: os.Environ, Now: time.Now})
	if err != nil {
		tb.Fatal(err)
	}
	event, _ := protocol.Lookup(protocol.PreToolCall)
	return eng, dispatch.Call{Event: event, Kwargs: protocol.Kwargs{}, Cwd: home}
}

// Accepting 10,000 new hooks is one locked write of the allowlist, not one
// per hook (which took 197 s): the bound is generous, the figure is in
// BenchmarkAcceptManyNewHooks.
func TestAcceptingManyNewHooksIsOneWrite(t *testing.T) {
	const n = 10_000
	eng, call := manyHooksEngine(t, n)
	src := eng.Dispatcher().Sources[1]
	start := time.Now()
	hooks := src.Hooks(context.Background(), call)
	if took := time.Since(start); took > 60*time.Second {
		t.Errorf("approving %d hooks took %v", n, took)
	}
	if len(hooks) != n {
		t.Fatalf("%d hooks, want %d", len(hooks), n)
	}
	if got := len(eng.Store.Load().Approvals); got != n {
		t.Errorf("%d approvals recorded, want %d", got, n)
	}
	aside, _ := filepath.Glob(filepath.Join(eng.Paths.Home, ".shell-hooks-allowlist.json.tmp-*"))
	if len(aside) != 0 {
		t.Errorf("temporary files left: %v", aside)
	}
}

func BenchmarkAcceptManyNewHooks(b *testing.B) {
	const n = 10_000
	for b.Loop() {
		b.StopTimer()
		eng, call := manyHooksEngine(b, n)
		src := eng.Dispatcher().Sources[1]
		b.StartTimer()
		src.Hooks(context.Background(), call)
	}
}
