// Package outbound delivers events to the webhook targets of hooks.outbound
// (SPEC §7): signed JSON POSTs, off the hot path, through a durable spool.
//
// Firing an event only writes each delivery to the spool under
// <home>/outbound/ and makes sure one background sender is running; the
// sender (`noora-hooks outbound send`, a detached child started through
// runner) does the HTTP. It must never make exec wait for the network, never
// change an answer (webhooks only observe), never lose a spooled delivery
// except by the retry policy or the bound, and never spawn a process except
// through runner.
package outbound

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/noora-hooks/noora-hooks/internal/dispatch"
	"github.com/noora-hooks/noora-hooks/internal/selfexec"

	"github.com/noora-hooks/noora-hooks/internal/config"
	"github.com/noora-hooks/noora-hooks/protocol"
)

// Source yields one hook per target that wants the call's event. It is the
// last source of the dispatcher (SPEC §3).
type Source struct {
	Home    string
	Spool   Spool
	Targets []config.OutboundTarget
	// Version goes into User-Agent: noora-hooks/<version>.
	Version string
	Now     func() time.Time
	// StartSender makes sure a sender will deliver what was just spooled;
	// nil means EnsureSender. Tests replace it.
	StartSender func(env []string) error

	mu       sync.Mutex
	reported bool // a failure to start a sender was reported
}

// NewSource returns the outbound source of a config.
func NewSource(home string, cfg *config.Config, version string) *Source {
	if abs, err := filepath.Abs(home); err == nil {
		home = abs // the sender runs elsewhere: a relative home would not be the same place
	}
	return &Source{
		Home:    home,
		Spool:   Spool{Dir: DirOf(home), Limit: cfg.SpoolLimit()},
		Targets: cfg.Outbound,
		Version: version,
		Now:     time.Now,
	}
}

// Hooks implements dispatch.Source.
func (s *Source) Hooks(_ context.Context, call dispatch.Call) []dispatch.Hook {
	if len(s.Targets) == 0 {
		return nil
	}
	tool, ok := protocol.ToolName(call.Kwargs)
	f := &firing{src: s}
	var out []dispatch.Hook
	for _, t := range s.Targets {
		if t.Wants(call.Event, tool, ok) {
			out = append(out, &Hook{Target: t, firing: f, index: len(f.targets)})
			f.targets = append(f.targets, t)
		}
	}
	return out
}

// Hook spools one event for one target.
type Hook struct {
	Target config.OutboundTarget
	firing *firing
	index  int // in firing.targets
}

// firing spools the deliveries of one call to all its targets at once, into
// one event file (see event.go): whichever of its hooks runs first does it,
// and each hook reports its own target's part.
type firing struct {
	src     *Source
	targets []config.OutboundTarget
	once    sync.Once
	results []dispatch.Result
}

// Describe implements dispatch.Hook.
func (h *Hook) Describe() dispatch.HookInfo {
	return dispatch.HookInfo{Source: "outbound", Name: h.Target.Name}
}

// Run implements dispatch.Hook. It never answers: webhooks only observe. Its
// status is ok when the delivery is in the spool, error when it was dropped.
func (h *Hook) Run(_ context.Context, call dispatch.Call) dispatch.Result {
	start := time.Now()
	h.firing.once.Do(func() { h.firing.spool(call) })
	res := h.firing.results[h.index]
	res.Duration = time.Since(start)
	return res
}

func (f *firing) spool(call dispatch.Call) {
	s := f.src
	getenv := Getenv(call.Env)
	now := s.Now()
	f.results = make([]dispatch.Result, len(f.targets))
	var ds []Delivery
	var which []int // f.targets index of each of ds
	for i, t := range f.targets {
		res := &f.results[i]
		*res = dispatch.Result{HookInfo: dispatch.HookInfo{Source: "outbound", Name: t.Name}, Status: dispatch.StatusOK}
		secret, signed, warning := t.SigningKey(getenv)
		if warning != "" {
			res.Warnings = append(res.Warnings, dispatch.Warn(warning))
		}
		d, err := NewDelivery(t, call.Event.Name, call.Kwargs, call.Cwd, secret, signed, s.Version, now)
		if err != nil {
			res.Status = dispatch.StatusError
			res.Warnings = append(res.Warnings, dispatch.Warn(dropped(t, call.Event.Name, d, s.Spool, err)))
			continue
		}
		ds, which = append(ds, d), append(which, i)
	}
	kick := false
	var lost unspooledReport
	for j, err := range s.Spool.AddAll(ds) {
		i := which[j]
		if err != nil {
			f.results[i].Status = dispatch.StatusError
			lost.add(i, f.targets[i], ds[j], err)
			if errors.Is(err, ErrFull) || errors.Is(err, ErrTooLarge) {
				f.results[i].Warnings = append(f.results[i].Warnings, dispatch.Warn(dropped(f.targets[i], call.Event.Name, ds[j], s.Spool, err)))
			}
		}
		// A full spool needs a sender most of all: the one that filled it
		// may have died.
		kick = kick || err == nil || errors.Is(err, ErrFull)
	}
	if w := lost.record(s.Spool, call.Event.Name, now); w != "" {
		f.results[lost.first].Warnings = append(f.results[lost.first].Warnings, dispatch.Warn(w))
	}
	if kick {
		if w := s.kick(call.Env); w != "" {
			f.results[0].Warnings = append(f.results[0].Warnings, dispatch.Warn(w))
		}
	}
}

func dropped(t config.OutboundTarget, event string, d Delivery, sp Spool, err error) string {
	what := fmt.Sprintf("outbound target %q: the %s delivery was dropped: ", t.Name, event)
	switch {
	case errors.Is(err, ErrFull):
		return what + fmt.Sprintf("the spool already holds %d deliveries (outbound_spool_limit); see \"noora-hooks outbound status\", or deliver them with \"noora-hooks outbound drain\"", sp.limit())
	case errors.Is(err, ErrTooLarge):
		return what + fmt.Sprintf("its body is %d MiB, over the %d MiB limit", len(d.Body)>>20, MaxBody>>20)
	}
	return what + err.Error()
}

// kick starts a sender when none runs. A failure to start is reported once
// per process: the deliveries wait in the spool either way.
func (s *Source) kick(env []string) string {
	start := s.StartSender
	if start == nil {
		start = func(env []string) error { return EnsureSender(s.Home, s.Spool, env) }
	}
	err := start(env)
	if err == nil {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.reported {
		return ""
	}
	s.reported = true
	return fmt.Sprintf("outbound: cannot start the background sender: %v; the deliveries wait in %s: deliver them with \"noora-hooks outbound drain\"", err, s.Spool.queue())
}

// Getenv looks a variable up in an environment list (the caller's, not ours:
// serve fires events for callers with other environments). The last
// definition wins, as in os/exec.
func Getenv(env []string) func(string) string {
	return func(key string) string {
		for i := len(env) - 1; i >= 0; i-- {
			if v, ok := strings.CutPrefix(env[i], key+"="); ok {
				return v
			}
		}
		return ""
	}
}

// logLimit is the size past which sender.log is rotated to sender.log.1 when
// a sender starts: two files of at most about this size are kept.
const logLimit = 1 << 20

// EnsureSender makes sure one background sender is running (SPEC §7). When
// the sender lock is free it takes it and starts `noora-hooks outbound send`
// detached, handing it the held lock: there is never a moment when the lock
// is free and a sender is on its way, so concurrent execs start one sender
// between them. When the lock is held, the holder will see what we spooled
// (Sender.Run looks again after it lets go).
func EnsureSender(home string, sp Spool, env []string) error {
	lock, err := sp.TryLockSender()
	if err != nil || lock == nil {
		return err
	}
	defer lock.Release()
	if st, err := os.Stat(sp.Log()); err == nil && st.Size() > logLimit {
		_ = os.Rename(sp.Log(), sp.Log()+".1")
	}
	_, err = selfexec.Start(selfexec.SenderArgs(home), selfexec.Options{
		Dir: sp.Dir, Env: env, Log: sp.Log(), ExtraFiles: []*os.File{lock.File()},
	})
	return err
}
