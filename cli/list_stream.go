package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/noora-hooks/noora-hooks/client"
	"github.com/noora-hooks/noora-hooks/internal/config"
	"github.com/noora-hooks/noora-hooks/internal/engine"
)

// serveAskTimeout bounds how long `list` waits for a running serve.
const serveAskTimeout = 2 * time.Second

// serveQueues is what a running serve says about its queues of streaming
// events, for `list`.
type serveQueues struct {
	Addr string
	// byHook is the queue of each shell hook entry, by event and command.
	byHook map[[2]string]*engine.QueueCounts
	all    []engine.ObserverQueue
}

// askServe asks the serve that `exec --server` would use (NOORA_HOOKS_SERVER,
// else the socket in home) for its listing. It returns nil when none answers
// or when it serves another config: queues live in a serve, and there is
// nothing to show without one.
func askServe(paths config.Paths, env *Env) *serveQueues {
	addr, err := defaultServer(paths, env.Getenv)
	if err != nil {
		return nil
	}
	token := ""
	if file := env.Getenv("NOORA_HOOKS_TOKEN_FILE"); file != "" {
		if token, err = client.ReadToken(file); err != nil {
			return nil
		}
	}
	c := client.New(addr, token)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), serveAskTimeout)
	defer cancel()
	body, err := c.Hooks(ctx)
	if err != nil {
		return nil
	}
	var listing struct {
		Config     string `json:"config"`
		ShellHooks []struct {
			Event   string              `json:"event"`
			Command string              `json:"command"`
			Queue   *engine.QueueCounts `json:"queue"`
		} `json:"shell_hooks"`
		ObserverQueues []engine.ObserverQueue `json:"observer_queues"`
	}
	if json.Unmarshal(body, &listing) != nil {
		return nil
	}
	mine, _ := filepath.Abs(paths.Config)
	if theirs, _ := filepath.Abs(listing.Config); theirs != mine {
		return nil
	}
	q := &serveQueues{Addr: addr.String(), byHook: map[[2]string]*engine.QueueCounts{}, all: listing.ObserverQueues}
	for _, h := range listing.ShellHooks {
		q.byHook[[2]string{h.Event, h.Command}] = h.Queue
	}
	if q.all == nil {
		q.all = []engine.ObserverQueue{}
	}
	return q
}

// of is the queue of one shell hook entry; nil without one.
func (q *serveQueues) of(h config.ShellHook) *engine.QueueCounts {
	if q == nil {
		return nil
	}
	return q.byHook[[2]string{h.Event, h.Command}]
}

// queueText is the line `list` prints under a hook with a queue.
func queueText(c engine.QueueCounts) string {
	return fmt.Sprintf("%d delivered, %d dropped, %d waiting (in serve)", c.Delivered, c.Dropped, c.Pending+c.Running)
}

// printObserverQueues lists serve's queues that dropped events, plugins'
// included, which the shell hook lines do not show.
func printObserverQueues(w io.Writer, q *serveQueues) {
	var lossy []engine.ObserverQueue
	for _, o := range q.all {
		if o.Dropped > 0 {
			lossy = append(lossy, o)
		}
	}
	if len(lossy) == 0 {
		return
	}
	fmt.Fprintf(w, "\nStreaming queues that dropped events (serve at %s):\n", q.Addr)
	for _, o := range lossy {
		fmt.Fprintf(w, "  %s %s (%v): %s\n", o.Source, o.Hook, o.Events, queueText(o.QueueCounts))
	}
}
