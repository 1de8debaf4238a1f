package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/noora-hooks/noora-hooks/internal/engine"
	"github.com/noora-hooks/noora-hooks/internal/shellhook"

	"github.com/noora-hooks/noora-hooks/internal/config"
	"github.com/noora-hooks/noora-hooks/internal/outbound"
	"github.com/noora-hooks/noora-hooks/protocol"
)

// OutboundCmd is `noora-hooks outbound ...` (SPEC §7).
type OutboundCmd struct {
	Drain  OutboundDrainCmd  `cmd:"" help:"Deliver every spooled webhook now, in the foreground, and report each delivery. Exit 1 when one was given up."`
	Status OutboundStatusCmd `cmd:"" help:"Show the spool: pending deliveries per target, the oldest one's age, the last failure, and whether the background sender runs."`
	Test   OutboundTestCmd   `cmd:"" help:"Send one test event to a target now, signed when it has a secret (no spool, no retry), and show the response. Exit 1 unless it answers 2xx."`
	Send   OutboundSendCmd   `cmd:"" hidden:"" help:"The background sender that exec starts: deliver the spool, then exit."`
}

// outboundSpool is the spool of the engine's home.
func outboundSpool(e *engine.Engine) outbound.Spool {
	return outbound.Spool{Dir: outbound.DirOf(e.Paths.Home), Limit: e.Config.SpoolLimit()}
}

// OutboundDrainCmd is `noora-hooks outbound drain`.
type OutboundDrainCmd struct {
	JSON bool `name:"json" help:"Print one JSON object: {\"deliveries\": [...], \"delivered\": N, \"gave_up\": N, \"corrupt\": N}."`
}

// Run delivers the spool in the foreground. A background sender that is
// running keeps the lock: drain waits for it to finish, then delivers what is left.
func (c *OutboundDrainCmd) Run(g *Globals, env *Env) error {
	eng, err := loadEngine(g, env)
	if err != nil {
		return err
	}
	if eng.SafeMode {
		return errors.New("NOORA_SAFE_MODE is on: outbound webhooks are disabled, nothing was delivered")
	}
	sp := outboundSpool(eng)
	ctx, stop := signalContext()
	defer stop()
	lock, err := sp.LockSender(ctx, func(pid int) {
		who := "the background sender"
		if pid > 0 {
			who += fmt.Sprintf(" (pid %d)", pid)
		}
		fmt.Fprintf(env.Stderr, "noora-hooks: waiting for %s to finish\n", who)
	})
	if err != nil {
		return fmt.Errorf("take the outbound sender lock: %w", err)
	}
	lock.WritePID(os.Getpid())
	sender := outbound.NewSender(sp)
	sender.Now = env.Now
	var results []outbound.Result
	sender.Report = func(r outbound.Result) {
		results = append(results, r)
		if !c.JSON {
			fmt.Fprintln(env.Stdout, drainLine(r))
		}
	}
	if !c.JSON {
		sender.Retrying = func(d outbound.Delivery, a outbound.Attempt) {
			fmt.Fprintf(env.Stderr, "noora-hooks: %s to %s (delivery %s): %s; retrying in %s\n", d.Event, d.Target, d.ID, a, outbound.RetryDelay)
		}
	}
	runErr := sender.Run(ctx, lock, true)
	counts := printDrain(env.Stdout, results, c.JSON)
	if runErr != nil {
		return runErr
	}
	if ctx.Err() != nil {
		return &exitError{code: 1, err: errors.New("interrupted: what was not delivered stays in the spool")}
	}
	if failed := counts[outbound.GaveUp] + counts[outbound.Corrupt]; failed > 0 {
		return &exitError{code: 1, err: fmt.Errorf("%d of %d deliveries failed", failed, len(results))}
	}
	return nil
}

// printDrain prints the summary of a drain and returns the count of each
// outcome.
func printDrain(w io.Writer, results []outbound.Result, asJSON bool) map[outbound.Status]int {
	counts := map[outbound.Status]int{}
	for _, r := range results {
		counts[r.Status]++
	}
	switch {
	case asJSON:
		out := protocol.Object{
			{Key: "deliveries", Value: protocol.Raw(drainJSON(results))},
			{Key: "delivered", Value: protocol.Raw(counts[outbound.Delivered])},
			{Key: "gave_up", Value: protocol.Raw(counts[outbound.GaveUp])},
			{Key: "corrupt", Value: protocol.Raw(counts[outbound.Corrupt])},
		}
		b, _ := out.MarshalJSON()
		fmt.Fprintf(w, "%s\n", b)
	case len(results) == 0:
		fmt.Fprintln(w, "nothing to deliver")
	default:
		fmt.Fprintf(w, "%d delivered, %d given up, %d corrupt\n", counts[outbound.Delivered], counts[outbound.GaveUp], counts[outbound.Corrupt])
	}
	return counts
}

// drainLine is one delivery of a drain, for people.
func drainLine(r outbound.Result) string {
	if r.Status == outbound.Corrupt {
		where := "removed"
		if r.Aside != "" {
			where = "moved to " + r.Aside
		}
		return fmt.Sprintf("%-9s  %s: %s; %s", "corrupt", r.Entry.Name, r.Err, where)
	}
	d := r.Delivery
	var parts []string
	for _, a := range r.Attempts {
		if a.TimedOut {
			parts = append(parts, a.String()) // its duration is the timeout
		} else {
			parts = append(parts, fmt.Sprintf("%s in %dms", a, a.Duration.Milliseconds()))
		}
	}
	status := "delivered"
	if r.Status == outbound.GaveUp {
		status = "gave up"
	}
	return fmt.Sprintf("%-9s  %s to %s (delivery %s): %s", status, d.Event, d.Target, d.ID, strings.Join(parts, ", then "))
}

// attemptJSON is the --json form of one attempt (drain) or of the one POST
// of `outbound test`.
type attemptJSON struct {
	Code       *int   `json:"code"`
	Error      string `json:"error,omitempty"`
	TimedOut   bool   `json:"timed_out,omitempty"`
	Location   string `json:"location,omitempty"`
	DurationMS int64  `json:"duration_ms"`
}

func attemptOf(a outbound.Attempt) attemptJSON {
	j := attemptJSON{Location: a.Location, TimedOut: a.TimedOut, DurationMS: a.Duration.Milliseconds()}
	if a.Code != 0 {
		code := a.Code
		j.Code = &code
	} else {
		j.Error = a.Err
	}
	return j
}

type deliveryJSON struct {
	Target     string        `json:"target"`
	URL        string        `json:"url"`
	Event      string        `json:"event"`
	DeliveryID string        `json:"delivery_id"`
	File       string        `json:"file,omitempty"`
	Status     string        `json:"status"`
	Attempts   []attemptJSON `json:"attempts"`
	Error      string        `json:"error,omitempty"`
}

func drainJSON(results []outbound.Result) []deliveryJSON {
	out := []deliveryJSON{}
	for _, r := range results {
		j := deliveryJSON{
			Target: r.Delivery.Target, URL: r.Delivery.URL, Event: r.Delivery.Event,
			DeliveryID: r.Delivery.ID, Status: string(r.Status), Attempts: []attemptJSON{}, Error: r.Err,
		}
		if r.Status == outbound.Corrupt {
			j.DeliveryID, j.File = r.Entry.ID, r.Entry.Name
		}
		for _, a := range r.Attempts {
			j.Attempts = append(j.Attempts, attemptOf(a))
		}
		out = append(out, j)
	}
	return out
}

// OutboundStatusCmd is `noora-hooks outbound status`.
type OutboundStatusCmd struct {
	JSON bool `name:"json" help:"Print one JSON object: spool, limit, pending, sender_pid, corrupt, and targets [{name, url, configured, pending, oldest, oldest_age_s, last_failure}]."`
}

// Run prints the spool per target: configured targets first, in config
// order, then targets that only the spool still knows.
func (c *OutboundStatusCmd) Run(g *Globals, env *Env) error {
	eng, err := loadEngine(g, env)
	if err != nil {
		return err
	}
	st, err := outbound.StatusOf(outboundSpool(eng), eng.Config.Outbound, env.Now())
	if err != nil {
		return err
	}
	if c.JSON {
		b, _ := json.Marshal(st)
		fmt.Fprintf(env.Stdout, "%s\n", b)
		return nil
	}
	printStatus(env.Stdout, st)
	return nil
}

// printStatus is the text of `outbound status`.
func printStatus(w io.Writer, st outbound.SpoolStatus) {
	fmt.Fprintf(w, "spool: %s: %d of %d deliveries pending\n", st.Spool, st.Pending, st.Limit)
	if st.SenderPID != nil {
		fmt.Fprintf(w, "sender: running (pid %d)\n", *st.SenderPID)
	} else {
		fmt.Fprintln(w, "sender: not running")
	}
	if n := st.Corrupt; n > 0 {
		fmt.Fprintf(w, "corrupt files moved aside: %d\n", n)
	}
	printUnspooled(w, st.Unspooled, st.UnspooledTotal)
	if len(st.Targets) == 0 {
		fmt.Fprintln(w, "no outbound targets")
		return
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TARGET\tURL\tPENDING\tOLDEST\tLAST FAILURE")
	for _, ts := range st.Targets {
		oldest := "-"
		if ts.OldestAgeS != nil {
			oldest = time.Duration(*ts.OldestAgeS * float64(time.Second)).Round(time.Second).String()
		}
		failure := "-"
		if f := ts.LastFailure; f != nil {
			failure = fmt.Sprintf("%s %s: %s", f.At.UTC().Format(outbound.TimestampLayout), f.Event, f.Error)
			if f.GaveUp {
				failure += " (given up)"
			} else {
				failure += fmt.Sprintf(" (attempt %d, retried)", f.Attempt)
			}
		}
		name := ts.Name
		if !ts.Configured {
			name += " (not in config)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", name, ts.URL, ts.Pending, oldest, failure)
	}
	_ = tw.Flush()
}

// OutboundTestCmd is `noora-hooks outbound test <name>`.
type OutboundTestCmd struct {
	Name  string `arg:"" help:"The target's name (or url)."`
	Event string `help:"The event to send (default: the target's first event)." placeholder:"EVENT"`
	JSON  bool   `name:"json" help:"Print one JSON object: target, url, event, delivery_id, signed, code, error, timed_out, location, duration_ms, body."`
}

// testKwargs mark a test delivery so that receivers can tell it apart.
func testKwargs() protocol.Kwargs {
	return protocol.WithTelemetry(protocol.Kwargs{
		{Key: "session_id", Value: protocol.String("noora-hooks-test")},
		{Key: "noora_hooks_test", Value: protocol.Raw(true)},
	})
}

// Run sends one test delivery to the target, signed as exec would sign it.
func (c *OutboundTestCmd) Run(g *Globals, env *Env) error {
	eng, err := loadEngine(g, env)
	if err != nil {
		return err
	}
	if eng.SafeMode {
		return errors.New("NOORA_SAFE_MODE is on: outbound webhooks are disabled")
	}
	t, ok := findTarget(eng.Config.Outbound, c.Name)
	if !ok {
		var names []string
		for _, t := range eng.Config.Outbound {
			names = append(names, t.Name)
		}
		if len(names) == 0 {
			return usageError("no outbound target %q: %s has no hooks.outbound targets", c.Name, eng.Paths.Config)
		}
		return usageError("no outbound target %q in %s; targets: %s", c.Name, eng.Paths.Config, strings.Join(names, ", "))
	}
	event := t.Events[0]
	if c.Event != "" {
		if _, ok := protocol.Lookup(c.Event); !ok {
			return unknownEvent(c.Event)
		}
		event = c.Event
	}
	secret, signed, warning := t.SigningKey(env.Getenv)
	if warning != "" {
		env.Warnf("%s", warning)
	}
	cwd, err := Cwd()
	if err != nil {
		return err
	}
	d, err := outbound.NewDelivery(t, event, testKwargs(), cwd, secret, signed, Version, env.Now())
	if err != nil {
		return err
	}
	ctx, stop := signalContext()
	defer stop()
	a := outbound.Post(ctx, outbound.NewClient(), d)
	if c.JSON {
		b, _ := json.Marshal(struct {
			Target     string `json:"target"`
			URL        string `json:"url"`
			Event      string `json:"event"`
			DeliveryID string `json:"delivery_id"`
			Signed     bool   `json:"signed"`
			attemptJSON
			Body string `json:"body"`
		}{t.Name, t.URL, event, d.ID, signed, attemptOf(a), shellhook.Excerpt(string(a.Body))})
		fmt.Fprintf(env.Stdout, "%s\n", b)
	} else {
		printTest(printableWriter{env.Stdout}, t, d, signed, a)
	}
	if !a.OK() {
		return &exitError{code: 1, err: fmt.Errorf("outbound target %q did not accept the test delivery: %s", t.Name, a)}
	}
	return nil
}

func printTest(w io.Writer, t config.OutboundTarget, d outbound.Delivery, signed bool, a outbound.Attempt) {
	sig := "yes (X-Noora-Signature-256)"
	if !signed {
		sig = "UNSIGNED"
	}
	fmt.Fprintf(w, "target:    %s\nurl:       %s\nevent:     %s\ndelivery:  %s\nsigned:    %s\nresponse:  %s in %dms\n",
		t.Name, t.URL, d.Event, d.ID, sig, a, a.Duration.Milliseconds())
	if body := strings.TrimSpace(string(a.Body)); body != "" {
		fmt.Fprintf(w, "body:      %s\n", shellhook.Excerpt(body))
	}
}

func findTarget(targets []config.OutboundTarget, name string) (config.OutboundTarget, bool) {
	for _, t := range targets {
		if t.Name == name {
			return t, true
		}
	}
	for _, t := range targets {
		if t.URL == name {
			return t, true
		}
	}
	return config.OutboundTarget{}, false
}

// senderNice is the background sender's scheduling priority.
const senderNice = 10

// OutboundSendCmd is the hidden `noora-hooks outbound send`: the background
// sender. exec starts it detached with the sender lock already held on fd 3.
type OutboundSendCmd struct {
	LockFD int `name:"lock-fd" help:"An inherited descriptor of the held sender lock." default:"-1"`
}

// Run delivers the spool, logging each delivery on stdout (exec points it at
// <home>/outbound/sender.log), and exits once the spool stays empty.
func (c *OutboundSendCmd) Run(g *Globals, env *Env) error {
	paths, err := config.Resolve(g.Home, g.Config, env.Getenv)
	if err != nil {
		return err
	}
	sp := outbound.Spool{Dir: outbound.DirOf(paths.Home)}
	logf := func(format string, args ...any) {
		fmt.Fprintf(env.Stdout, "%s "+format+"\n", append([]any{env.Now().UTC().Format(outbound.TimestampLayout)}, args...)...)
	}
	var lock *outbound.SenderLock
	if c.LockFD >= 0 {
		if l, ok := sp.AdoptSenderLock(os.NewFile(uintptr(c.LockFD), "sender.lock")); ok {
			lock = l
		}
	}
	if lock == nil {
		if lock, err = sp.TryLockSender(); err != nil {
			return err
		}
		if lock == nil {
			logf("sender %d: another sender holds the lock; exiting", os.Getpid())
			return nil
		}
	}
	lock.WritePID(os.Getpid())
	// Background work yields to the hot path: on a busy machine the sender
	// must not slow the agent's tool calls. PRIO_PGRP reaches every thread
	// of our group (on Linux a thread's nice is its own), and we lead it.
	_ = syscall.Setpriority(syscall.PRIO_PGRP, 0, senderNice)
	logf("sender %d: started", os.Getpid())
	ctx, stop := signalContext()
	defer stop()
	sender := outbound.NewSender(sp)
	sender.Idle = outbound.DefaultIdle
	sender.Now = env.Now
	sender.Report = func(r outbound.Result) { logf("%s", drainLine(r)) }
	sender.Retrying = func(d outbound.Delivery, a outbound.Attempt) {
		logf("%-9s  %s to %s (delivery %s): %s; retrying in %s", "retry", d.Event, d.Target, d.ID, a, outbound.RetryDelay)
	}
	err = sender.Run(ctx, lock, false)
	switch {
	case err != nil:
		logf("sender %d: stopped: %v", os.Getpid(), err)
	case ctx.Err() != nil:
		logf("sender %d: stopped by a signal; what was not delivered stays in the spool", os.Getpid())
	default:
		logf("sender %d: the spool is empty; exiting", os.Getpid())
	}
	return err
}
