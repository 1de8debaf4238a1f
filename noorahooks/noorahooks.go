// Package noorahooks embeds noora-hooks in a Go program: load a Noora home
// once, fire events at its hooks (shell hooks, plugins, outbound webhooks),
// and close it. It is what `noora-hooks exec` does, without a process per
// event, and answers exactly as exec would (SPEC §8).
//
//	h, err := noorahooks.Load(noorahooks.Options{})
//	if err != nil { ... }
//	defer h.Close()
//	res, err := h.Fire(ctx, "pre_tool_call", kwargs, cwd)
//	os.Stdout.Write(res.JSON())
//
// Hooks run in their own process groups through noora-hooks' runner: a hook
// cannot crash or block the embedding program beyond its timeout.
package noorahooks

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/noora-hooks/noora-hooks/internal/engine"
	"github.com/noora-hooks/noora-hooks/protocol"
)

// Options say which home to load and what the hooks inherit.
type Options struct {
	// Home is the Noora home; empty means $NOORA_HOME, else ~/.noora.
	Home string
	// Config is the config file; empty means <home>/config.yaml.
	Config string
	// AcceptHooks approves every shell hook that fires and records the
	// approval, like --accept-hooks (SPEC §5). Leave it off unless the
	// program's user asked for it.
	AcceptHooks bool
	// Env is the environment hooks get and NOORA_* settings are read from;
	// nil means this process's.
	Env []string
	// Warn receives each warning (config problems, skipped hooks, hooks that
	// failed); nil drops them. It may be called from several goroutines.
	Warn func(msg string)
}

// Hooks is one loaded home. It is safe for concurrent use.
type Hooks struct {
	e *engine.Engine
}

// Load reads the home's config and allowlist. Plugins start on the first
// event that needs them.
func Load(opts Options) (*Hooks, error) {
	env := opts.Env
	if env == nil {
		env = os.Environ()
	}
	vars := make(map[string]string, len(env))
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			vars[k] = v
		}
	}
	warn := opts.Warn
	if warn != nil {
		var mu sync.Mutex
		w := warn
		warn = func(msg string) { mu.Lock(); defer mu.Unlock(); w(msg) }
	}
	e, err := engine.Load(engine.Options{
		Home: opts.Home, Config: opts.Config, AcceptHooks: opts.AcceptHooks,
		Getenv:  func(k string) string { return vars[k] },
		Environ: func() []string { return env },
		Warn:    warn,
	})
	if err != nil {
		return nil, err
	}
	return &Hooks{e: e}, nil
}

// Result is the answer of one event.
type Result struct {
	// Answer is the combined answer of every hook, in declaration order.
	Answer protocol.Combined
	// Warnings are what the hooks did wrong, in declaration order; exec
	// prints them on stderr.
	Warnings []string
}

// JSON is the answer as exec prints it: one line of JSON.
func (r Result) JSON() []byte {
	b, _ := r.Answer.MarshalJSON()
	return append(b, '\n')
}

// Fire fires event with its keyword arguments (a JSON object, as exec reads
// on stdin; nil or empty means none) at every hook, hooks running in cwd. ctx
// cancels the hooks: their process groups are killed.
func (h *Hooks) Fire(ctx context.Context, event string, kwargs []byte, cwd string) (Result, error) {
	ev, ok := protocol.Lookup(event)
	if !ok {
		return Result{}, fmt.Errorf("fire %q: unknown event", event)
	}
	kw, err := protocol.ParseKwargs(kwargs)
	if err != nil {
		return Result{}, fmt.Errorf("fire %s: kwargs: %w", event, err)
	}
	report := h.e.Fire(ctx, ev, kw, cwd)
	return Result{Answer: report.Combined, Warnings: warningsOf(report.Warnings())}, nil
}

func warningsOf(w []string) []string {
	if w == nil {
		return []string{}
	}
	return w
}

// Close stops the plugin processes the home started.
func (h *Hooks) Close() error { return h.e.Close() }
