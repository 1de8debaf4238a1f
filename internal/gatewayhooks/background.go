package gatewayhooks

import (
	"context"
	"fmt"
	"sync"

	"github.com/noora-hooks/noora-hooks/internal/plugins"
	"github.com/noora-hooks/noora-hooks/plugins/wire"
)

// A handler that plays a sound or posts a chat message often does it from an
// asyncio task or a thread that outlives handle(): the agent's gateway is a
// long-lived process that lets it finish. Here each handler.py has a process
// of its own, which would end with handle(). So once handle() has answered,
// the host is asked how much work is left; a process with none stops at once,
// the others get up to Emitter.Background to finish it (the host enforces
// the bound itself), and Emit waits for them only when WaitBackground says so.

// busyHandlers are the handler processes of one Emit still finishing
// background work that Emit waits for.
type busyHandlers struct {
	wg sync.WaitGroup
}

func (b *busyHandlers) wait() { b.wg.Wait() }

// hostInit is the init line of a handler.py host: the home and config the
// agent's modules answer from, and the background bound.
func (e *Emitter) hostInit() []byte {
	e.hostConfig.Do(func() {
		e.hostConfigJSON, e.hostConfigErr = plugins.HostConfig(e.ConfigPath)
	})
	return wire.Init(wire.HostInit{
		Home: e.Home, ConfigPath: e.ConfigPath,
		Config: e.hostConfigJSON, ConfigError: e.hostConfigErr,
		DrainTimeout: e.Background.Seconds(),
	})
}

// finish ends a handler's process once handle() has answered (or failed),
// leaving it its background work as described above.
func (e *Emitter) finish(ctx context.Context, h *Handler, proc *plugins.Process, busy *busyHandlers) {
	if e.Background <= 0 || !proc.Alive() {
		proc.Stop()
		return
	}
	pending, err := proc.Release(ctx, e.BackgroundLog, e.WaitBackground)
	switch {
	case err != nil:
		if log := e.log(h); log != nil {
			log(fmt.Sprintf("noora-hooks: cannot ask about its background work: %v", err))
		}
		proc.Stop()
	case pending == 0:
		proc.Stop()
	case e.WaitBackground:
		busy.wg.Add(1)
		go func() {
			defer busy.wg.Done()
			proc.StopAfter(e.Background)
		}()
	default:
		proc.Abandon()
	}
}
