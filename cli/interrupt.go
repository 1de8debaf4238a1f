package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/noora-hooks/noora-hooks/protocol"
)

// interruption is a context cancelled by SIGINT or SIGTERM that remembers the
// signal, for the commands that answer a gate (exec, the bridge): an
// interrupted gate must never read as "go ahead" (SPEC §4, §8).
type interruption struct {
	ctx  context.Context
	stop func()

	mu  sync.Mutex
	sig os.Signal
}

// catchInterrupt starts catching SIGINT and SIGTERM; stop ends it.
func catchInterrupt() *interruption {
	ctx, cancel := context.WithCancel(context.Background())
	i := &interruption{ctx: ctx}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-sigs:
			i.mu.Lock()
			i.sig = sig
			i.mu.Unlock()
			cancel()
		case <-done:
		}
	}()
	var once sync.Once
	i.stop = func() {
		once.Do(func() {
			signal.Stop(sigs)
			close(done)
			cancel()
		})
	}
	return i
}

// caught returns the signal that interrupted the command, or nil.
func (i *interruption) caught() os.Signal {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.sig
}

// interrupted is the outcome of a command whose hooks a signal stopped when
// their answer was not a block: no answer at all, and exit 128+signal, as a
// shell reports a process killed by it. A caller reading "no answer, exit 0"
// as "allow" is exactly what this avoids.
func interrupted(sig os.Signal) error {
	code := 130
	if s, ok := sig.(syscall.Signal); ok {
		code = 128 + int(s)
	}
	return &exitError{code: code, err: fmt.Errorf("interrupted by %v: the hooks were stopped and no answer was given", sig)}
}

// gateClosed reports whether a combined answer blocks the tool call: the one
// answer still printed after an interruption, since blocking is what a failed
// fail_closed gate does.
func gateClosed(c protocol.Combined) bool {
	if c.Event != protocol.PreToolCall {
		return false
	}
	action, ok := c.Answer.Get("action")
	return ok && string(action) == `"block"`
}
