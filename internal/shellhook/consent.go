package shellhook

import (
	"context"
	"fmt"

	"github.com/noora-hooks/noora-hooks/internal/config"
	"github.com/noora-hooks/noora-hooks/internal/dispatch"
	"github.com/noora-hooks/noora-hooks/protocol"
)

// Verdict is what consent decided about one shell hook.
type Verdict int

const (
	// Allow runs the hook. A why with it says the hook runs although its
	// approval had drifted (an accept channel approved it again): the
	// drift, which its Result carries.
	Allow Verdict = iota
	// Skip does not run it; why is the whole warning.
	Skip
	// Close does not run it because consent could not be checked (a broken
	// allowlist) or the approval does not cover what would run (drift); why
	// is the reason. A fail_closed gate blocks with "hook <command> failed
	// closed: <why>": a gate that cannot be checked is closed (SPEC §5).
	// Any other hook is skipped with a warning.
	Close
)

// refused is the hook that stands for a configured one consent refused.
func refused(h config.ShellHook, v Verdict, why string) dispatch.Hook {
	info := dispatch.HookInfo{Source: "shell", Name: h.Command, Where: h.Where()}
	if h.URL != "" {
		info.Source = "url"
	}
	if v == Close && h.FailClosed {
		return ClosedGate{Info: info, Message: "hook " + h.Command + " failed closed: " + why}
	}
	if v == Close {
		why = fmt.Sprintf("%s hook %q: %s; skipped", h.Event, h.Command, why)
	}
	return Skipped{Info: info, Why: why}
}

// ClosedGate is a fail_closed hook that does not run and blocks.
type ClosedGate struct {
	Info    dispatch.HookInfo
	Message string
}

// Describe implements Hook.
func (g ClosedGate) Describe() dispatch.HookInfo { return g.Info }

// Run implements Hook.
func (g ClosedGate) Run(context.Context, dispatch.Call) dispatch.Result {
	return dispatch.Result{
		HookInfo: g.Info,
		Status:   dispatch.StatusError,
		Answer:   protocol.Answer{Kind: protocol.Block, Message: g.Message},
		Warnings: []dispatch.Warning{{Hook: fmt.Sprintf("%s hook %q", protocol.PreToolCall, g.Info.Name), Message: g.Message}},
	}
}
