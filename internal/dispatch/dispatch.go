package dispatch

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/noora-hooks/noora-hooks/internal/runner"

	"github.com/noora-hooks/noora-hooks/protocol"
)

// Call is one firing of an event.
type Call struct {
	Event  protocol.Event
	Kwargs protocol.Kwargs
	Cwd    string   // the caller's working directory: hooks run there
	Home   string   // NOORA_HOME, passed to hooks
	Env    []string // the caller's environment, passed to hooks

	// stdin is the SPEC §4 payload, built once for every hook of the call
	// on first use (see StdinOf); nil builds it per use.
	stdin *lazyStdin
}

type lazyStdin struct {
	once sync.Once
	b    []byte
}

// Payload is the SPEC §4 payload as one line of JSON, what a shell hook reads
// on stdin. Within one dispatch (RunAll, Fanout) it is built once and shared by
// every hook; the slice must not be changed.
func (c Call) Payload() []byte {
	if c.stdin == nil {
		return buildPayload(c)
	}
	c.stdin.once.Do(func() { c.stdin.b = buildPayload(c) })
	return c.stdin.b
}

func buildPayload(c Call) []byte {
	b, _ := protocol.Payload(c.Event.Name, c.Kwargs, c.Cwd).MarshalJSON()
	return append(b, '\n')
}

// shareStdin returns call with its payload to be built at most once, however
// many hooks (running concurrently) read it.
func shareStdin(call Call) Call {
	if call.stdin == nil {
		call.stdin = &lazyStdin{}
	}
	return call
}

// Hook is anything that answers an event: a shell hook, a plugin callback, an
// outbound target. A new kind of hook is a new type that implements it.
type Hook interface {
	// Describe names the hook for traces and warnings.
	Describe() HookInfo
	// Run answers one call. It must honour ctx, and return its problems as
	// Result.Warnings rather than print them: the dispatcher prints them in
	// declaration order so that stderr does not depend on timing.
	Run(ctx context.Context, call Call) Result
}

// HookInfo names a hook.
type HookInfo struct {
	Source string // "plugin", "shell", "outbound"
	Name   string // the command line, plugin:callback, or target name
	// Where the hook is configured (file:line of a shell hook), for the run
	// journal; "" when the name says it all.
	Where string
}

// Source yields, in its own order, the hooks that apply to one call (matchers
// and consent already applied).
type Source interface {
	Hooks(ctx context.Context, call Call) []Hook
}

// Status of one hook's run, as traces show it (SPEC §8).
type Status string

const (
	StatusOK      Status = "ok"
	StatusError   Status = "error"
	StatusTimeout Status = "timeout"
	StatusSkipped Status = "skipped"
)

// Result is what one hook did.
type Result struct {
	HookInfo
	Status   Status
	ExitCode *int // nil when no process exited
	Duration time.Duration
	Answer   protocol.Answer
	Warnings []Warning
	// Outcome is the raw process outcome for hooks that ran a process, for
	// `test` and `doctor`; nil otherwise.
	Outcome *runner.Outcome
	// NotDelivered: the event never reached the hook, such as a stream line
	// that was not written because the stream's process had ended. Queues
	// count it as dropped, not delivered.
	NotDelivered bool
	// Drift says why the hook's approval no longer covered what it ran
	// (SPEC §5) when an accept channel approved it again and it ran; empty
	// otherwise. The run journal shows it.
	Drift string
}

// MarshalJSON gives the trace form of SPEC §8.
func (r Result) MarshalJSON() ([]byte, error) {
	exit := json.RawMessage("null")
	if r.ExitCode != nil {
		exit = protocol.Raw(*r.ExitCode)
	}
	answer, _ := r.Answer.MarshalJSON()
	return protocol.Object{
		{Key: "source", Value: protocol.String(r.Source)},
		{Key: "command", Value: protocol.String(r.Name)},
		{Key: "status", Value: protocol.String(string(r.Status))},
		{Key: "exit_code", Value: exit},
		{Key: "duration_ms", Value: protocol.Raw(r.Duration.Milliseconds())},
		{Key: "answer", Value: answer},
	}.MarshalJSON()
}

// Warning is one problem of a hook's run, for stderr: which hook (empty when
// the message names it itself) and what went wrong and what was done.
type Warning struct {
	Hook    string // e.g. `pre_tool_call hook "guard.sh"`
	Message string
}

// String is the warning as printed: "<hook>: <message>".
func (w Warning) String() string {
	if w.Hook == "" {
		return w.Message
	}
	return w.Hook + ": " + w.Message
}

// Strings gives each warning as printed.
func Strings(ws []Warning) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.String()
	}
	return out
}

// Warn is a warning whose message names its hook.
func Warn(msg string) Warning { return Warning{Message: msg} }

// Report is the outcome of firing one event.
type Report struct {
	Combined protocol.Combined
	Results  []Result // in declaration order
	// Skips are the hooks that were considered and did not run, with the
	// reason (skip.go); a hook refused by consent is also a skipped Result.
	Skips []Skip
}

// Warnings returns every warning of the run in declaration order, then the
// combination's own.
func (r Report) Warnings() []string {
	var w []string
	for _, res := range r.Results {
		for _, rw := range res.Warnings {
			w = append(w, rw.String())
		}
	}
	return append(w, r.Combined.Warnings...)
}

// Dispatcher fires events at its sources.
type Dispatcher struct {
	Sources []Source // in SPEC §3 order: plugins, shell hooks, outbound
	// Concurrency bounds how many hooks of one event run at once; 1 runs them
	// one by one. 0 means 32.
	Concurrency int
}

// Fire runs every hook that applies to call, concurrently up to the bound, and
// combines their answers in declaration order: the answer is the one running
// them one by one would give.
func (d *Dispatcher) Fire(ctx context.Context, call Call) Report {
	var hooks []Hook
	var skips []Skip
	for _, s := range d.Sources {
		h, sk := selectHooks(ctx, s, call)
		hooks, skips = append(hooks, h...), append(skips, sk...)
	}
	results := RunAll(ctx, call, hooks, d.Concurrency)
	answers := make([]protocol.Answer, len(results))
	for i, r := range results {
		answers[i] = r.Answer
	}
	return Report{
		Combined: protocol.Combine(call.Event.Name, call.Kwargs, answers),
		Results:  results,
		Skips:    skips,
	}
}

// RunAll runs hooks with at most limit at once (0: 32) and returns their
// results in the order of hooks.
func RunAll(ctx context.Context, call Call, hooks []Hook, limit int) []Result {
	call = shareStdin(call)
	jobs := make([]Job, len(hooks))
	for i, h := range hooks {
		jobs[i] = Job{Hook: h, Call: call}
	}
	return RunEach(ctx, jobs, limit)
}

// Job is one hook with the call it answers.
type Job struct {
	Hook Hook
	Call Call
}

// Sequenced is a Hook that belongs to a sequence: the hooks of one call that
// name the same sequence run one at a time, in declaration order (Gemini
// CLI's `sequential: true`), while everything else runs concurrently.
type Sequenced interface {
	Sequence() string // "" for none
}

// RunEach runs each job's hook on its own call, with at most limit at once
// (0: 32), and returns their results in the order of jobs. The jobs of one
// sequence (Sequenced) form one lane that runs them one after another.
func RunEach(ctx context.Context, jobs []Job, limit int) []Result {
	if limit <= 0 {
		limit = 32
	}
	results := make([]Result, len(jobs))
	if len(jobs) == 1 || limit == 1 {
		for i, j := range jobs {
			results[i] = j.Hook.Run(ctx, j.Call)
		}
		return results
	}
	var lanes [][]int // indexes into jobs, each lane in declaration order
	bySequence := map[string]int{}
	for i, j := range jobs {
		if s, ok := j.Hook.(Sequenced); ok && s.Sequence() != "" {
			if l, seen := bySequence[s.Sequence()]; seen {
				lanes[l] = append(lanes[l], i)
				continue
			}
			bySequence[s.Sequence()] = len(lanes)
		}
		lanes = append(lanes, []int{i})
	}
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	for _, lane := range lanes {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			for _, i := range lane {
				results[i] = jobs[i].Hook.Run(ctx, jobs[i].Call)
			}
		}()
	}
	wg.Wait()
	return results
}
