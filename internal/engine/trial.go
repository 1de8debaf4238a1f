package engine

import (
	"context"
	"strings"
	"time"

	"github.com/noora-hooks/noora-hooks/internal/config"
	"github.com/noora-hooks/noora-hooks/internal/dispatch"
	"github.com/noora-hooks/noora-hooks/internal/lazy"
	"github.com/noora-hooks/noora-hooks/internal/shellhook"
	"github.com/noora-hooks/noora-hooks/protocol"
)

// Trial is what `test` reports: every shell hook of one event run for real on
// one payload, approved or not, and the answer exec would combine from them.
type Trial struct {
	Event   protocol.Event
	Kwargs  protocol.Kwargs
	Payload protocol.Object // the SPEC §4 payload the hooks read
	// States and Results are those of the hooks that ran, in config order.
	States  []HookState
	Results []dispatch.Result
	// Unmatched are the hooks of the event whose matcher refused forTool.
	Unmatched []config.ShellHook
	Combined  protocol.Combined
}

// Trial runs every shell hook of event on kw (with forTool, only those whose
// matcher accepts it, and tool_name set to it), concurrently as exec would,
// and combines their answers as exec would. The run is recorded in the run
// journal (via test).
func (e *Engine) Trial(ctx context.Context, event protocol.Event, kw protocol.Kwargs, forTool, cwd string) Trial {
	start := time.Now()
	if forTool != "" {
		kw = kw.With("tool_name", protocol.String(forTool))
	}
	call := e.Call(event, kw, cwd)
	t := Trial{Event: event, Kwargs: call.Kwargs, Payload: protocol.Payload(event.Name, call.Kwargs, cwd)}
	var hooks []dispatch.Hook
	for _, h := range e.Config.ShellHooks {
		if h.Event != event.Name {
			continue
		}
		if forTool != "" && !h.Matcher.Match(forTool, true) {
			t.Unmatched = append(t.Unmatched, h)
			continue
		}
		st := e.StateOf(h)
		hooks = append(hooks, e.trialHook(h, st))
		t.States = append(t.States, st)
	}
	t.Results = dispatch.RunAll(ctx, call, hooks, e.Config.Concurrency)
	answers := make([]protocol.Answer, len(t.Results))
	for i, r := range t.Results {
		answers[i] = r.Answer
	}
	t.Combined = protocol.Combine(event.Name, call.Kwargs, answers)
	e.recordTrial(start, t, cwd, forTool)
	return t
}

// SafeModeNotRun is what a report says about a hook safe mode did not run.
const SafeModeNotRun = "not run: NOORA_SAFE_MODE is on"

// trialHook is the hook a trial runs for h: h itself, unless safe mode is on
// (safe mode runs nothing, anywhere) or anyone may write its script.
func (e *Engine) trialHook(h config.ShellHook, st HookState) dispatch.Hook {
	info := dispatch.HookInfo{Source: "shell", Name: h.Command, Where: h.Where()}
	if e.SafeMode {
		return shellhook.Skipped{Info: info, Why: SafeModeNotRun}
	}
	if st.Binding.Path != "" {
		if p := config.CheckWritable("hook script", st.Binding.Path); p != nil && p.Refused {
			return shellhook.Skipped{Info: info, Why: "not run: " + p.Error()}
		}
	}
	return e.ShellHook(h)
}

// TryEach runs each of hooks once on a synthetic payload of its own event
// (doctor's trial run), concurrently up to the configured bound, and returns
// the results in the order of hooks. A tool event's payload names a tool the
// hook's matcher accepts (TrialTool).
func (e *Engine) TryEach(ctx context.Context, hooks []config.ShellHook, cwd string) []dispatch.Result {
	jobs := make([]dispatch.Job, len(hooks))
	for i, h := range hooks {
		event, _ := protocol.Lookup(h.Event)
		kw, _ := protocol.Synthetic(h.Event)
		if tool, ok := TrialTool(h); ok {
			kw = kw.With("tool_name", protocol.String(tool))
		}
		jobs[i] = dispatch.Job{Hook: e.ShellHook(h), Call: e.Call(event, kw, cwd)}
	}
	return dispatch.RunEach(ctx, jobs, e.Config.Concurrency)
}

// toolLike is a matcher alternative that is a plain tool name.
var toolLike = lazy.Regexp(`^[A-Za-z0-9_.:-]+$`)

// TrialTool picks the tool name of a tool event's trial payload: the terminal
// tool, unless the hook's matcher refuses it and names a tool it accepts.
func TrialTool(h config.ShellHook) (string, bool) {
	if h.Matcher == nil || h.Matcher.Match(protocol.SyntheticTool, true) {
		return "", false
	}
	for _, alt := range strings.Split(h.Matcher.Source, "|") {
		alt = strings.TrimSpace(alt)
		if toolLike().MatchString(alt) && h.Matcher.Match(alt, true) {
			return alt, true
		}
	}
	return "", false
}

// Gate is the first fail_closed shell hook that applies to a call of event
// with kw: its event, and a matcher that accepts the call's tool. It is what
// must block when the call's answer is lost.
func (e *Engine) Gate(event protocol.Event, kw protocol.Kwargs) (config.ShellHook, bool) {
	tool, hasTool := protocol.ToolName(kw)
	for _, h := range e.Config.ShellHooks {
		if h.Event == event.Name && h.FailClosed && h.Matcher.Match(tool, hasTool) {
			return h, true
		}
	}
	return config.ShellHook{}, false
}
