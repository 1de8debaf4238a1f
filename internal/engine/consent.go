package engine

import (
	"context"
	"fmt"

	"github.com/noora-hooks/noora-hooks/internal/config"
	"github.com/noora-hooks/noora-hooks/internal/consent"
	"github.com/noora-hooks/noora-hooks/internal/dispatch"
	"github.com/noora-hooks/noora-hooks/internal/shellhook"
)

// consent decides whether a shell hook runs for call (SPEC §5). It runs when
// its (event, command) pair is approved and the approval covers the file the
// command would run here, with its content now; or, when an accept channel is
// on, it is approved (recorded once the source has yielded every hook of the
// call: recordingSource). A broken allowlist or an approval that no longer
// covers what would run closes a fail_closed gate; anything else that is not
// approved is skipped with a warning naming the ways to approve it.
func (e *Engine) consent(h config.ShellHook, call dispatch.Call) (shellhook.Verdict, string) {
	b := bind(h, call.Cwd, call.Env)
	if b.Path != "" {
		// Whoever can write the script decides what runs (SPEC §1).
		if p := config.CheckWritable("hook script", b.Path); p != nil {
			if p.Refused {
				return shellhook.Close, p.Error()
			}
			e.opts.Warn(fmt.Sprintf("%s hook %q: %s", h.Event, h.Command, p))
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	allow := e.allowlist()
	drift := ""
	if a, ok := allow.Find(h.Event, h.Command); ok {
		if drift = a.Drift(b); drift == "" {
			return shellhook.Allow, ""
		}
	}
	if e.Accept {
		a := consent.NewApproval(h.Event, h.Command, b, e.opts.Now())
		allow.Add(a)
		e.pending = append(e.pending, a)
		return shellhook.Allow, drift
	}
	switch {
	case e.allowErr != nil && h.FailClosed:
		return shellhook.Close, fmt.Sprintf("consent cannot be checked: %v", e.allowErr)
	case drift != "":
		return shellhook.Close, fmt.Sprintf("its approval does not cover what would run: %s; review it, then run \"noora-hooks approve\"", drift)
	}
	return shellhook.Skip, fmt.Sprintf("%s hook %q is not approved and was skipped; approve it with \"noora-hooks approve\", or run with --accept-hooks, NOORA_ACCEPT_HOOKS=1 or hooks_auto_accept: true in %s",
		h.Event, h.Command, e.Paths.Config)
}

// bind is what an approval of h binds to where it runs: the file its command
// runs (consent.Bind). A URL hook runs no file: its approval is of the
// (event, URL) pair alone, the URL standing where the command stands.
func bind(h config.ShellHook, cwd string, env []string) consent.Binding {
	if h.URL != "" {
		return consent.Binding{}
	}
	return consent.Bind(h.Command, cwd, env)
}

// recordPending writes the approvals the accept channels made, all in one
// locked write of the allowlist (10,000 new hooks are one write, not 10,000).
func (e *Engine) recordPending() {
	e.mu.Lock()
	pending := e.pending
	e.pending = nil
	e.mu.Unlock()
	if len(pending) == 0 {
		return
	}
	if err := e.Store.Record(pending...); err != nil {
		what := fmt.Sprintf("%d shell hooks were", len(pending))
		if len(pending) == 1 {
			what = "1 shell hook was"
		}
		e.opts.Warn(fmt.Sprintf("%s approved for this run, but not recorded: %v", what, err))
	}
}

// recordingSource records the approvals its shell source's consent made as
// soon as the source has yielded the call's hooks, before any of them runs.
type recordingSource struct {
	*shellhook.ShellSource
	e *Engine
}

// Hooks implements dispatch.Source.
func (s recordingSource) Hooks(ctx context.Context, call dispatch.Call) []dispatch.Hook {
	hooks := s.ShellSource.Hooks(ctx, call)
	s.e.recordPending()
	return hooks
}

// Select implements dispatch.Selector: the shell source's hooks and the
// entries it passed over, with the approvals recorded as Hooks does.
func (s recordingSource) Select(ctx context.Context, call dispatch.Call) ([]dispatch.Hook, []dispatch.Skip) {
	hooks, skips := s.ShellSource.Select(ctx, call)
	s.e.recordPending()
	return hooks, skips
}

// Pending is what `approve` asks about: one state per (event, command) pair,
// which is what the allowlist keys on, for every pair that is not approved or
// whose approval no longer covers what would run (drift); already counts the
// pairs that are approved.
func (e *Engine) Pending() (pending []HookState, already int) {
	seen := map[[2]string]bool{}
	for _, h := range e.Config.ShellHooks {
		key := [2]string{h.Event, h.Command}
		if seen[key] {
			continue
		}
		seen[key] = true
		s := e.StateOf(h)
		if s.Approved && !s.Drift {
			already++
			continue
		}
		pending = append(pending, s)
	}
	return pending, already
}

// Approve records an approval of each state, bound to the file it resolves
// to now, in one locked write of the allowlist.
func (e *Engine) Approve(states []HookState) ([]consent.Approval, error) {
	records := make([]consent.Approval, len(states))
	for i, s := range states {
		records[i] = consent.NewApproval(s.Hook.Event, s.Hook.Command, s.Binding, e.opts.Now())
	}
	return records, e.Store.Record(records...)
}
