package runner

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/shlex"
	"github.com/tidwall/gjson"

	"github.com/noora-hooks/noora-hooks/config"
	"github.com/noora-hooks/noora-hooks/protocol"
)

// MessageLimit is how much of a hook's stderr a block message or a warning
// quotes: the first 400 characters (SPEC §4).
const MessageLimit = 400

// Consent decides whether a shell hook may run. nil means every hook may.
type Consent func(h config.ShellHook) (ok bool, why string)

// ShellSource yields the configured shell hooks of an event, in config order.
type ShellSource struct {
	Entries []config.ShellHook
	// Consent, when set, turns hooks it refuses into skipped results.
	Consent Consent
}

// Hooks returns the hooks of call's event whose matcher accepts the tool name.
func (s *ShellSource) Hooks(call Call) []Hook {
	tool, hasTool := protocol.ToolName(call.Kwargs)
	var out []Hook
	for _, h := range s.Entries {
		if h.Event != call.Event.Name || !h.Matcher.Match(tool, hasTool) {
			continue
		}
		if s.Consent != nil {
			if ok, why := s.Consent(h); !ok {
				out = append(out, Skipped{Info: HookInfo{Source: "shell", Name: h.Command}, Why: why})
				continue
			}
		}
		out = append(out, &ShellHook{Config: h})
	}
	return out
}

// Skipped is a hook that does not run; its result says why.
type Skipped struct {
	Info HookInfo
	Why  string
}

// Describe implements Hook.
func (s Skipped) Describe() HookInfo { return s.Info }

// Run implements Hook.
func (s Skipped) Run(context.Context, Call) Result {
	return Result{HookInfo: s.Info, Status: StatusSkipped, Warnings: []string{s.Why}}
}

// ShellHook runs one configured command with the JSON payload on stdin and
// reads its answer (SPEC §4).
type ShellHook struct {
	Config config.ShellHook
}

// Describe implements Hook.
func (h *ShellHook) Describe() HookInfo {
	return HookInfo{Source: "shell", Name: h.Config.Command}
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
	argv[0] = config.ExpandTilde(argv[0])
	return argv, nil
}

// Env is the environment of a hook: the caller's, plus NOORA_HOOK_EVENT and
// NOORA_HOME, which replace any inherited values.
func Env(call Call) []string {
	env := make([]string, 0, len(call.Env)+2)
	for _, kv := range call.Env {
		if strings.HasPrefix(kv, "NOORA_HOOK_EVENT=") || strings.HasPrefix(kv, "NOORA_HOME=") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "NOORA_HOOK_EVENT="+call.Event.Name, "NOORA_HOME="+call.Home)
}

// StdinOf is the bytes a shell hook reads: one line of JSON.
func StdinOf(call Call) []byte {
	b, _ := protocol.Payload(call.Event.Name, call.Kwargs, call.Cwd).MarshalJSON()
	return append(b, '\n')
}

// Run implements Hook.
func (h *ShellHook) Run(ctx context.Context, call Call) Result {
	res := Result{HookInfo: h.Describe(), Status: StatusOK}
	argv, err := Argv(h.Config.Command)
	if err != nil {
		res.Status = StatusError
		return h.failed(res, err.Error(), err.Error())
	}
	out := Run(ctx, Command{
		Argv:    argv,
		Dir:     call.Cwd,
		Env:     Env(call),
		Stdin:   StdinOf(call),
		Timeout: h.Config.Timeout,
	})
	res.Duration = out.Duration
	res.Outcome = &out
	return h.read(res, out)
}

// read interprets a finished run by the rules of SPEC §4.
func (h *ShellHook) read(res Result, out Outcome) Result {
	event := h.Config.Event
	switch out.End {
	case StartFailed:
		res.Status = StatusError
		reason := out.Err.Error()
		if errors.Is(out.Err, ErrNotFound) {
			reason = "program not found: " + strings.TrimPrefix(out.Err.Error(), ErrNotFound.Error()+": ")
		}
		return h.failed(res, reason, "cannot start: "+out.Err.Error())
	case TimedOut:
		res.Status = StatusTimeout
		secs := int(h.Config.Timeout / time.Second)
		return h.failed(res, fmt.Sprintf("timed out after %ds", secs), fmt.Sprintf("timed out after %ds; its process group was killed", secs))
	}
	code := out.Code
	res.ExitCode = &code

	// stdout first: even a failing hook's block counts (SPEC §4).
	stdout := strings.TrimSpace(string(out.Stdout))
	var value gjson.Result
	parsed, unparseable := false, false
	switch {
	case stdout == "":
	case out.StdoutTruncated:
		unparseable = true
		res.Warnings = append(res.Warnings, h.where()+fmt.Sprintf("stdout is over %d MiB and was cut; ignoring it", StdoutLimit>>20))
	default:
		v, ok, err := protocol.Parse([]byte(stdout))
		if err != nil {
			unparseable = true
			res.Warnings = append(res.Warnings, h.where()+"stdout is not valid JSON; ignoring it: "+Excerpt(stdout))
		} else if ok {
			value, parsed = v, true
		}
	}
	if parsed {
		res.Answer = protocol.Read(event, value)
	}
	if h.Config.FailClosed && (unparseable || (parsed && !value.IsObject())) {
		res.Status = StatusError
		return h.failed(res, "unparseable stdout (expected a JSON object)", "")
	}

	if code == 2 && event == protocol.PreToolCall {
		if res.Answer.Kind != protocol.Block {
			msg := Excerpt(strings.TrimSpace(string(out.Stderr)))
			if msg == "" {
				msg = protocol.DefaultBlockMessage
			}
			res.Answer = protocol.Answer{Kind: protocol.Block, Message: msg}
		}
		return res
	}
	if code != 0 {
		res.Status = StatusError
		what := fmt.Sprintf("exited with status %d", code)
		if out.Signal != 0 {
			what = "was killed by " + out.Signal.String()
		}
		if s := Excerpt(strings.TrimSpace(string(out.Stderr))); s != "" {
			what += ": " + s
		}
		res.Warnings = append(res.Warnings, h.where()+what)
	}
	return res
}

// failed records a hook that gave no answer. Under fail_closed it blocks with
// `hook <command> failed closed: <reason>` (SPEC §4); otherwise it fails open
// with a warning (warning may be empty when one was already given).
func (h *ShellHook) failed(res Result, reason, warning string) Result {
	if h.Config.FailClosed {
		msg := fmt.Sprintf("hook %s failed closed: %s", h.Config.Command, reason)
		res.Answer = protocol.Answer{Kind: protocol.Block, Message: msg}
		res.Warnings = append(res.Warnings, h.where()+msg)
		return res
	}
	res.Answer = protocol.Answer{}
	if warning != "" {
		res.Warnings = append(res.Warnings, h.where()+warning)
	}
	return res
}

func (h *ShellHook) where() string {
	return fmt.Sprintf("%s hook %q: ", h.Config.Event, h.Config.Command)
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
