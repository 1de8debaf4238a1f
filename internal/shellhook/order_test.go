//go:build unix

package shellhook

import (
	"context"
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/noora-hooks/noora-hooks/internal/config"
	"github.com/noora-hooks/noora-hooks/internal/dispatch"
	"github.com/noora-hooks/noora-hooks/protocol"
)

func TestShellHooksWithRandomSleepsCombineInConfigOrder(t *testing.T) {
	var entries []config.ShellHook
	for i := 0; i < 12; i++ {
		sleep := fmt.Sprintf("0.0%d", rand.Intn(10))
		entries = append(entries, config.ShellHook{
			Event:   protocol.PreLLMCall,
			Command: fmt.Sprintf(`sh -c 'sleep %s; printf "{\"context\": \"hook %d\"}"'`, sleep, i),
			Timeout: 10 * time.Second,
		})
	}
	event, _ := protocol.Lookup(protocol.PreLLMCall)
	call := dispatch.Call{Event: event, Kwargs: protocol.Kwargs{}, Env: []string{"PATH=/usr/bin:/bin"}, Cwd: t.TempDir()}
	src := &ShellSource{Entries: entries}
	seq := (&dispatch.Dispatcher{Sources: []dispatch.Source{src}, Concurrency: 1}).Fire(context.Background(), call)
	want, _ := seq.Combined.MarshalJSON()
	if got := string(want); got != `{"event":"pre_llm_call","context":"hook 0\n\nhook 1\n\nhook 2\n\nhook 3\n\nhook 4\n\nhook 5\n\nhook 6\n\nhook 7\n\nhook 8\n\nhook 9\n\nhook 10\n\nhook 11"}` {
		t.Fatalf("sequential answer %s", got)
	}
	for run := 0; run < 5; run++ {
		got := (&dispatch.Dispatcher{Sources: []dispatch.Source{src}}).Fire(context.Background(), call)
		b, _ := got.Combined.MarshalJSON()
		if string(b) != string(want) {
			t.Fatalf("run %d: %s, want %s", run, b, want)
		}
	}
}

func TestHooksOfOneEventRunConcurrently(t *testing.T) {
	var entries []config.ShellHook
	for i := 0; i < 16; i++ {
		entries = append(entries, config.ShellHook{Event: "on_session_start", Command: fmt.Sprintf("sleep 1.%03d", i), Timeout: 10 * time.Second})
	}
	call := dispatch.Call{Event: mustEvent(t, "on_session_start"), Kwargs: protocol.Kwargs{}, Env: []string{"PATH=/usr/bin:/bin"}}
	start := time.Now()
	(&dispatch.Dispatcher{Sources: []dispatch.Source{&ShellSource{Entries: entries}}}).Fire(context.Background(), call)
	// One by one this takes 16 s; together about 1 s. The bound only has to
	// tell the two apart on a loaded machine.
	if took := time.Since(start); took > 8*time.Second {
		t.Errorf("16 hooks sleeping 1 s took %v: they did not run concurrently", took)
	}
}

func mustEvent(t testing.TB, name string) protocol.Event {
	e, ok := protocol.Lookup(name)
	if !ok {
		t.Fatalf("no event %s", name)
	}
	return e
}

func mustKwargs(t testing.TB, s string) protocol.Kwargs {
	kw, err := protocol.ParseObject([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return kw
}
