package shellhook

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/noora-hooks/noora-hooks/internal/dispatch"
	"github.com/noora-hooks/noora-hooks/internal/paths"
	"github.com/noora-hooks/noora-hooks/internal/runner"

	"github.com/google/shlex"

	"github.com/noora-hooks/noora-hooks/internal/config"
	"github.com/noora-hooks/noora-hooks/protocol"
)

// MessageLimit is how much of a hook's stderr a block message or a warning
// quotes: the first 400 characters (SPEC §4).
const MessageLimit = 400

// Consent decides whether a shell hook may run for call, and says why not
// (see Verdict). nil means every hook may.
type Consent func(h config.ShellHook, call dispatch.Call) (v Verdict, why string)

// ShellSource yields the configured shell hooks of an event, in config order.
type ShellSource struct {
	Entries []config.ShellHook
	// Consent, when set, turns hooks it refuses into skipped results, or
	// blocks for the gates it closes.
	Consent Consent
	// Dialects speak the protocols that entries name in `dialect:` (SPEC
	// §11), by name. An entry whose dialect is missing here is skipped with a
	// warning.
	Dialects map[string]Dialect
	// Streams keeps the processes of `stream: true` entries across events
	// (serve); nil runs each event as a stream of one line (exec).
	Streams *Streams
}

// Dialect speaks another agent's hook protocol (Claude Code, Cursor) to a
// shell hook: what it reads on stdin, its environment, when it applies and
// how its answer is read. Running the process, timeouts, output bounds,
// consent and fail_closed stay with ShellHook: a Dialect only translates.
// Implementations live in package compat, which runner does not import.
type Dialect interface {
	// Applies reports whether h runs for call, by the dialect's event names
	// and matcher rules. A non-empty problem skips the hook with that warning.
	Applies(h config.ShellHook, call dispatch.Call) (ok bool, problem string)
	// Stdin is the payload the hook reads.
	Stdin(h config.ShellHook, call dispatch.Call) []byte
	// Env is added to the hook's environment, replacing variables of the
	// same names.
	Env(h config.ShellHook, call dispatch.Call) []string
	// Read interprets a hook that ran and exited (start failures and
	// timeouts never reach it).
	Read(h config.ShellHook, call dispatch.Call, out runner.Outcome) Reading
}

// Reading is what a hook that exited said, read by the rules of its protocol.
type Reading struct {
	Answer protocol.Answer
	// Unusable: stdout held something other than a JSON object answer;
	// fail_closed turns that into a block (SPEC §4). Reason, when set, is
	// the block's reason instead of the unparseable stdout.
	Unusable bool
	Reason   string
	// Failed: the exit status is an error; ShellHook warns with the status
	// and the start of stderr.
	Failed bool
	// Warnings about the answer, without the hook's name (ShellHook adds it).
	Warnings []string
}

// Hooks returns the hooks of call's event whose matcher accepts the tool name.
func (s *ShellSource) Hooks(ctx context.Context, call dispatch.Call) []dispatch.Hook {
	hooks, _ := s.Select(ctx, call)
	return hooks
}

// Select implements dispatch.Selector: the hooks of call's event that run,
// and the entries of that event that do not, with the rule that passed them
// over.
func (s *ShellSource) Select(_ context.Context, call dispatch.Call) ([]dispatch.Hook, []dispatch.Skip) {
	tool, hasTool := protocol.ToolName(call.Kwargs)
	var out []dispatch.Hook
	var skips []dispatch.Skip
	for _, h := range s.Entries {
		if h.Event != call.Event.Name {
			continue
		}
		info := dispatch.HookInfo{Source: "shell", Name: h.Command, Where: h.Where()}
		if h.URL != "" {
			info.Source, info.Name = "url", h.URL
		}
		skip := func(reason dispatch.SkipReason, detail string) {
			skips = append(skips, dispatch.Skip{Hook: info, Where: info.Where, Reason: reason, Detail: detail})
		}
		var dialect Dialect
		if h.Dialect != "" {
			dialect = s.Dialects[h.Dialect]
			if dialect == nil {
				out = append(out, Skipped{Info: info, Why: fmt.Sprintf("%s hook %q: dialect %q is not available here; skipped", h.Event, h.Command, h.Dialect)})
				skip(dispatch.SkipDialect, fmt.Sprintf("dialect %q is not available here", h.Dialect))
				continue
			}
			ok, problem := dialect.Applies(h, call)
			if problem != "" {
				out = append(out, Skipped{Info: info, Why: fmt.Sprintf("%s hook %q: %s", h.Event, h.Command, problem)})
				skip(dispatch.SkipDialect, problem)
				continue
			}
			if !ok {
				skip(dispatch.SkipDialect, dialectMismatch(h, tool, hasTool))
				continue
			}
		} else if !h.Matcher.Match(tool, hasTool) {
			skip(dispatch.SkipMatcher, MatcherMismatch(h.Matcher, tool, hasTool))
			continue
		}
		drift := ""
		if s.Consent != nil {
			v, why := s.Consent(h, call)
			if v == Allow {
				drift = why
			} else {
				out = append(out, refused(h, v, why))
				detail := NotApproved
				if v == Close {
					detail = why
				}
				skip(dispatch.SkipNotApproved, detail)
				continue
			}
		}
		if h.URL != "" {
			out = append(out, &URLHook{Config: h, Dialect: dialect})
			continue
		}
		if h.Stream {
			out = append(out, &StreamHook{Config: h, Streams: s.Streams, Drift: drift})
			continue
		}
		out = append(out, &ShellHook{Config: h, Dialect: dialect, Drift: drift})
	}
	return s.closers(call, out), skips
}

// NotApproved is the detail of a hook that consent refused (SPEC §5).
const NotApproved = "(event, command) is not in the allowlist and no accept channel is on; approve it with \"noora-hooks approve\""

// MatcherMismatch says why matcher m refused a call, showing both sides.
func MatcherMismatch(m *config.Matcher, tool string, hasTool bool) string {
	if !hasTool {
		return fmt.Sprintf("matcher %q needs a tool_name and the call has none", m.Source)
	}
	how := "regular expression, matched against the whole name"
	if m.Literal() {
		how = "not a valid regular expression, compared as text"
	}
	return fmt.Sprintf("matcher %q (%s) does not match tool %q", m.Source, how, tool)
}

// dialectMismatch says why a dialect hook's own rules refused a call.
func dialectMismatch(h config.ShellHook, tool string, hasTool bool) string {
	what := fmt.Sprintf("the %s dialect's rules do not take this %s call", h.Dialect, h.Event)
	if h.DialectEvent != "" {
		what += fmt.Sprintf(" as %s", h.DialectEvent)
	}
	if h.Matcher != nil {
		t := "no tool"
		if hasTool {
			t = fmt.Sprintf("tool %q", tool)
		}
		what += fmt.Sprintf(" (matcher %q by %s's rules, %s)", h.Matcher.Source, h.Dialect, t)
	}
	return what
}

// Skipped is a hook that does not run; its result says why.
type Skipped struct {
	Info dispatch.HookInfo
	Why  string
}

// Describe implements Hook.
func (s Skipped) Describe() dispatch.HookInfo { return s.Info }

// Run implements Hook.
func (s Skipped) Run(context.Context, dispatch.Call) dispatch.Result {
	return dispatch.Result{HookInfo: s.Info, Status: dispatch.StatusSkipped, Warnings: []dispatch.Warning{dispatch.Warn(s.Why)}}
}

// ShellHook runs one configured command with the JSON payload on stdin and
// reads its answer (SPEC §4).
type ShellHook struct {
	Config config.ShellHook
	// Dialect, when set, translates payload and answer (SPEC §11); nil is
	// Noora's own protocol.
	Dialect Dialect
	// Drift: consent let it run although its approval had drifted (Verdict).
	Drift string
}

// Sequence implements dispatch.Sequenced: the entry's `sequence:`.
func (h *ShellHook) Sequence() string { return h.Config.Sequence }

// Describe implements Hook.
func (h *ShellHook) Describe() dispatch.HookInfo {
	return dispatch.HookInfo{Source: "shell", Name: h.Config.Command, Where: h.Config.Where()}
}

// Argv splits a command line like a POSIX shell would, without expanding
// anything but a leading ~ of the program (SPEC §2).
func Argv(command string) ([]string, error) {
	argv, err := shlex.Split(command)
	if err != nil {
		return nil, fmt.Errorf("command '%s' cannot be parsed: %v", command, err)
	}
	if len(argv) == 0 {
		return nil, fmt.Errorf("command '%s' cannot be parsed: it is empty", command)
	}
	argv[0] = paths.ExpandTilde(argv[0])
	return argv, nil
}

// Env is the environment of a hook: the caller's, plus NOORA_HOOK_EVENT and
// NOORA_HOME, which replace any inherited values.
func Env(call dispatch.Call) []string {
	return runner.Environ(call.Env, "NOORA_HOOK_EVENT="+call.Event.Name, "NOORA_HOME="+call.Home)
}

// Run implements Hook.
func (h *ShellHook) Run(ctx context.Context, call dispatch.Call) dispatch.Result {
	res := h.run(ctx, call)
	res.Drift = h.Drift
	return res
}

func (h *ShellHook) run(ctx context.Context, call dispatch.Call) dispatch.Result {
	res := dispatch.Result{HookInfo: h.Describe(), Status: dispatch.StatusOK}
	argv, err := Argv(h.Config.Command)
	if err != nil {
		res.Status = dispatch.StatusError
		return h.failed(res, err.Error(), err.Error())
	}
	var env []string
	var stdin []byte
	if h.Dialect != nil {
		env = runner.Environ(Env(call), h.Dialect.Env(h.Config, call)...)
		stdin = h.Dialect.Stdin(h.Config, call)
	} else {
		env, stdin = Env(call), call.Payload()
	}
	out := runner.Run(ctx, runner.Command{
		Argv:    argv,
		Dir:     call.Cwd,
		Env:     env,
		Stdin:   stdin,
		Timeout: h.Config.Timeout,
	})
	res.Duration = out.Duration
	res.Outcome = &out
	if ctx.Err() != nil {
		return h.interrupted(res)
	}
	return h.read(res, call, out)
}

// interrupted records a hook stopped because its caller was (a signal to
// exec, a forced shutdown of serve): whatever it printed is not its answer,
// and under fail_closed it blocks like any other failure (SPEC §4: an
// interrupted gate never reads as "go ahead").
func (h *ShellHook) interrupted(res dispatch.Result) dispatch.Result {
	res.Status = dispatch.StatusError
	res.ExitCode = nil
	return h.failed(res, "interrupted", "interrupted; its process group was killed")
}

// read interprets a finished run by the rules of SPEC §4; what the hook's
// output means is read by its dialect, or by ReadNoora.
func (h *ShellHook) read(res dispatch.Result, call dispatch.Call, out runner.Outcome) dispatch.Result {
	switch out.End {
	case runner.StartFailed:
		res.Status = dispatch.StatusError
		warning := "cannot start: " + out.Err.Error()
		if errors.Is(out.Err, runner.ErrInterpreter) {
			warning = out.Err.Error()
		}
		return h.failed(res, out.Err.Error(), warning)
	case runner.TimedOut:
		res.Status = dispatch.StatusTimeout
		secs := int(h.Config.Timeout / time.Second)
		return h.failed(res, fmt.Sprintf("timed out after %ds", secs), fmt.Sprintf("timed out after %ds; its process group was killed", secs))
	}
	code := out.Code
	res.ExitCode = &code

	var r Reading
	if h.Dialect != nil {
		r = h.Dialect.Read(h.Config, call, out)
	} else {
		r = ReadNoora(h.Config.Event, out)
	}
	for _, w := range r.Warnings {
		res.Warnings = append(res.Warnings, dispatch.Warning{Hook: h.where(), Message: w})
	}
	res.Answer = r.Answer
	if h.Config.FailClosed && r.Unusable {
		res.Status = dispatch.StatusError
		reason := "unparseable stdout (expected a JSON object)"
		if r.Reason != "" {
			reason = r.Reason
		}
		return h.failed(res, reason, "")
	}
	if r.Failed {
		res.Status = dispatch.StatusError
		what := out.ExitText()
		if s := Excerpt(strings.TrimSpace(string(out.Stderr))); s != "" {
			what += ": " + s
		}
		res.Warnings = append(res.Warnings, dispatch.Warning{Hook: h.where(), Message: what})
	}
	return res
}

// ReadNoora reads the output of a hook that exited by Noora's rules (SPEC §4):
// stdout first, so that even a failing hook's block counts; exit 2 on
// pre_tool_call blocks with the start of stderr; any other non-zero status
// is a failure.
func ReadNoora(event string, out runner.Outcome) Reading {
	var r Reading
	// Python's str.strip(), as the agent trims it: U+001C..U+001F too.
	stdout := protocol.PyStrip(string(out.Stdout))
	switch {
	case stdout == "":
	case out.StdoutTruncated:
		r.Unusable = true
		r.Warnings = append(r.Warnings, fmt.Sprintf("stdout is over %d MiB and was cut; ignoring it", runner.StdoutLimit>>20))
	default:
		v, ok, err := protocol.Parse([]byte(stdout))
		switch {
		case errors.Is(err, protocol.ErrTooDeep):
			r.Unusable = true
			r.Warnings = append(r.Warnings, fmt.Sprintf("stdout nests arrays and objects more than %d levels deep; ignoring it", protocol.MaxDepth))
		case err != nil:
			r.Unusable = true
			r.Warnings = append(r.Warnings, "stdout is not valid JSON; ignoring it: "+Excerpt(stdout))
		case ok:
			r.Unusable = !v.IsObject()
			// The agent reads a shell hook's context only from an
			// object; a bare string is context from a plugin only.
			if event != protocol.PreLLMCall || v.IsObject() {
				r.Answer = protocol.Read(event, v)
			}
		}
	}
	switch {
	case out.Code == 2 && event == protocol.PreToolCall:
		if r.Answer.Kind != protocol.Block {
			r.Answer = protocol.Answer{Kind: protocol.Block, Message: StderrMessage(out)}
		}
		// Exit 2 has decided: stdout that is not an object does not turn
		// the block into a fail_closed one (the agent blocks with stderr).
		r.Unusable = false
	case out.Code != 0:
		r.Failed = true
	}
	return r
}

// StderrMessage is the block message of a hook that blocked by its exit
// status: the first MessageLimit characters of its trimmed stderr, else
// protocol.DefaultBlockMessage.
func StderrMessage(out runner.Outcome) string {
	if msg := Excerpt(protocol.PyStrip(string(out.Stderr))); msg != "" {
		return msg
	}
	return protocol.DefaultBlockMessage
}

// failed records a hook that gave no answer. Under fail_closed it blocks with
// `hook <command> failed closed: <reason>` (SPEC §4); otherwise it fails open
// with a warning (warning may be empty when one was already given).
func (h *ShellHook) failed(res dispatch.Result, reason, warning string) dispatch.Result {
	if h.Config.FailClosed {
		msg := fmt.Sprintf("hook %s failed closed: %s", h.Config.Command, reason)
		res.Answer = protocol.Answer{Kind: protocol.Block, Message: msg}
		res.Warnings = append(res.Warnings, dispatch.Warning{Hook: h.where(), Message: msg})
		return res
	}
	res.Answer = protocol.Answer{}
	if warning != "" {
		res.Warnings = append(res.Warnings, dispatch.Warning{Hook: h.where(), Message: warning})
	}
	return res
}

func (h *ShellHook) where() string {
	return fmt.Sprintf("%s hook %q", h.Config.Event, h.Config.Command)
}

// Excerpt returns the first MessageLimit characters of s.
func Excerpt(s string) string {
	if utf8.RuneCountInString(s) <= MessageLimit {
		return s
	}
	n := 0
	for i := range s {
		if n == MessageLimit {
			return s[:i]
		}
		n++
	}
	return s
}
