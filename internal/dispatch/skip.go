package dispatch

import "context"

// SkipReason says why a hook that was considered for a call did not run. It
// is what the run journal and `why` report, so that "why did my hook not
// run?" has an answer that names the rule.
type SkipReason string

const (
	// SkipMatcher: the hook's matcher did not accept the call's tool name.
	SkipMatcher SkipReason = "matcher"
	// SkipNotApproved: the (event, command) pair is not in the allowlist and
	// no accept channel is on (SPEC §5).
	SkipNotApproved SkipReason = "not_approved"
	// SkipDialect: the hook speaks a dialect whose event or matcher rules do
	// not take this call, or the dialect is not available (SPEC §11).
	SkipDialect SkipReason = "dialect"
	// SkipSafeMode: NOORA_SAFE_MODE is on, nothing is registered (SPEC §1).
	SkipSafeMode SkipReason = "safe_mode"
)

// Skip is a hook that was considered for a call and did not run.
type Skip struct {
	Hook HookInfo
	// Where the hook is configured: file:line for a shell hook.
	Where  string
	Reason SkipReason
	// Detail says it in a sentence, showing both sides of a mismatch.
	Detail string
}

// Selector is a Source that also reports the hooks it passed over for a call,
// and why. Sources that are not Selectors report nothing they passed over.
type Selector interface {
	Source
	Select(ctx context.Context, call Call) ([]Hook, []Skip)
}

// selectHooks asks src for the hooks of call, and for its skips when it can
// say them.
func selectHooks(ctx context.Context, src Source, call Call) ([]Hook, []Skip) {
	if sel, ok := src.(Selector); ok {
		return sel.Select(ctx, call)
	}
	return src.Hooks(ctx, call), nil
}
