package plugins

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/noora-hooks/noora-hooks/internal/dispatch"
)

// streamHooks are the callbacks of a streaming event (on_stream_start,
// on_stream_delta, on_stream_end, on_interim_message). The Noora guide gives
// each of them its own queue and worker, so, unlike other events:
//   - a plugin's callbacks are not chained one after the other: a dropped or
//     stalled event of one callback must never hold up the next;
//   - a process is not started here, on the path of the host that fires the
//     event, but by the callback when it runs (callbackHook.restart), except
//     the first start of a plugin, which is needed to learn its callbacks.
//
// A plugin process still answers one request at a time (docs/plugin-protocol.md):
// a slow streaming callback delays its own plugin's other callbacks, never
// another plugin's, whose process and queues are their own.
func (m *Manager) streamHooks(ctx context.Context, call dispatch.Call) []dispatch.Hook {
	kwargs, _ := call.Kwargs.MarshalJSON()
	var out []dispatch.Hook
	for i, p := range m.plugins {
		s := m.slots[i]
		proc := s.known.Load()
		if proc == nil && s.mu.TryLock() {
			// Never started, and no start under way: start it now (exec,
			// or serve's first event when it did not warm its plugins).
			tried := s.err != nil
			s.mu.Unlock()
			if !tried {
				st := s.ensure(ctx, m, p)
				if st.err != nil {
					out = append(out, failed{
						info: dispatch.HookInfo{Source: "plugin", Name: p.Name},
						msg:  fmt.Sprintf("plugin %q cannot run: %v", p.Name, st.err),
					})
					continue
				}
				if st.fresh {
					m.announce(p, st.proc)
				}
				proc = st.proc
			}
		}
		if err := m.sectionClash(i, proc, func(j int) *Process { return m.slots[j].known.Load() }); err != nil {
			out = append(out, failed{
				info: dispatch.HookInfo{Source: "plugin", Name: p.Name},
				msg:  fmt.Sprintf("plugin %q cannot run: %v", p.Name, err),
			})
			continue
		}
		if proc == nil {
			// Starting, or its last start failed: the worker waits for the
			// start (or tries again) and runs whatever the plugin registers.
			out = append(out, &pendingPlugin{m: m, plugin: p, slot: i, event: call.Event.Name, kwargs: kwargs})
			continue
		}
		index := 0
		for _, h := range proc.Hello.Hooks {
			if h.Event != call.Event.Name {
				continue
			}
			out = append(out, &callbackHook{
				m: m, plugin: p, proc: proc, event: h.Event, index: index,
				callback: h.Callback, kwargs: kwargs, slot: i, streaming: true,
			})
			index++
		}
	}
	return out
}

// Warm starts every plugin process now, in parallel, rather than on the
// first event; a long-lived server calls it in the background after a load,
// so that no host's event waits for a plugin to start.
func (m *Manager) Warm(ctx context.Context) {
	if m != nil {
		m.ensure(ctx)
	}
}

// pendingPlugin is a plugin whose callbacks are not known yet, for one
// streaming event: its process is starting, or its last start failed. When it
// runs (in a worker), it waits for the start, or tries again, and runs the
// callbacks the plugin registered for the event, one after the other. Events
// that came in while the plugin was starting may thus reach a callback after
// the first events delivered through its own queue.
type pendingPlugin struct {
	m      *Manager
	plugin *Plugin
	slot   int
	event  string
	kwargs json.RawMessage
}

// Describe implements dispatch.Hook.
func (h *pendingPlugin) Describe() dispatch.HookInfo {
	return dispatch.HookInfo{Source: "plugin", Name: h.plugin.Name}
}

// QueueKey implements dispatch.QueueKeyer.
func (h *pendingPlugin) QueueKey(event string) string {
	return fmt.Sprintf("%s\x00plugin\x00%s\x00starting", event, h.plugin.Name)
}

// Run implements dispatch.Hook.
func (h *pendingPlugin) Run(ctx context.Context, call dispatch.Call) dispatch.Result {
	res := dispatch.Result{HookInfo: h.Describe(), Status: dispatch.StatusOK}
	start := time.Now()
	defer func() { res.Duration = time.Since(start) }()
	st := h.m.slots[h.slot].ensure(ctx, h.m, h.plugin)
	if st.err != nil {
		res.Status = dispatch.StatusError
		res.Warnings = append(res.Warnings, dispatch.Warn(fmt.Sprintf("plugin %q cannot run: %v", h.plugin.Name, st.err)))
		return res
	}
	if st.fresh {
		h.m.announce(h.plugin, st.proc)
	}
	index := 0
	for _, r := range st.proc.Hello.Hooks {
		if r.Event != h.event {
			continue
		}
		cb := &callbackHook{
			m: h.m, plugin: h.plugin, proc: st.proc, event: r.Event, index: index,
			callback: r.Callback, kwargs: h.kwargs, slot: h.slot, streaming: true,
		}
		index++
		one := cb.Run(ctx, call)
		res.Warnings = append(res.Warnings, one.Warnings...)
		if one.Status != dispatch.StatusOK && res.Status == dispatch.StatusOK {
			res.Status = one.Status
		}
	}
	return res
}

// QueueKey implements dispatch.QueueKeyer: one queue per registered callback,
// told apart by position as well as name, since two callbacks may share one.
func (h *callbackHook) QueueKey(event string) string {
	return fmt.Sprintf("%s\x00plugin\x00%s\x00%d", event, h.plugin.Name, h.index)
}

// restart starts the plugin's process again for a streaming callback whose
// process has ended. It returns nil and why when the plugin cannot run, or
// when the new process no longer registers this callback.
func (h *callbackHook) restart(ctx context.Context) (*Process, string) {
	st := h.m.slots[h.slot].ensure(ctx, h.m, h.plugin)
	if st.err != nil {
		return nil, fmt.Sprintf("plugin %q cannot run: %v", h.plugin.Name, st.err)
	}
	if st.fresh {
		h.m.announce(h.plugin, st.proc)
	}
	index := 0
	for _, r := range st.proc.Hello.Hooks {
		if r.Event != h.event {
			continue
		}
		if index == h.index {
			return st.proc, ""
		}
		index++
	}
	return nil, fmt.Sprintf("plugin %q: %s callback %s is no longer registered after its process started again; skipped", h.plugin.Name, h.event, h.name())
}
