package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/noora-hooks/noora-hooks/internal/config"
	"github.com/noora-hooks/noora-hooks/internal/journal"
)

// LogCmd is `noora-hooks log`: the run journal, read like git log.
type LogCmd struct {
	Event   string `help:"Only firings of EVENT (a Noora event, or the agent's own name such as PreToolUse)." placeholder:"EVENT" predictor:"event"`
	Session string `help:"Only firings of session ID." placeholder:"ID"`
	Since   string `help:"Only firings since DURATION ago (10m, 2h) or since TIME (RFC 3339, e.g. 2026-11-30T10:00:00Z)." placeholder:"WHEN"`
	Hook    string `help:"Only firings that considered a hook whose command or config location contains SUBSTRING." placeholder:"SUBSTRING"`
	Blocked bool   `help:"Only firings whose answer blocked (or skipped a gateway dispatch)."`
	Follow  bool   `short:"f" help:"Keep going: print firings as they are recorded, until interrupted."`
	JSON    bool   `help:"Print the records as they are stored: one JSON object per line (shape: docs/journal.md)." name:"json"`
}

// Help is the long help of `log`.
func (LogCmd) Help() string {
	return `Every firing (exec, exec --dialect, serve, test, gateway emit) appends one line to <home>/logs/runs.jsonl: the event, the session and tool, every hook considered, whether it ran and, when it did not, why (its matcher did not match the tool, it is not approved, its dialect does not apply, safe mode), how each hook that ran ended, and the combined answer. Values that look like secrets are redacted. "journal: false" in config.yaml turns it off.`
}

// Run prints the journal's firings that pass the filters, oldest first.
func (c *LogCmd) Run(g *Globals, env *Env) error {
	filter, err := c.filter(env.Now())
	if err != nil {
		return err
	}
	paths, err := config.Resolve(g.Home, g.Config, env.Getenv)
	if err != nil {
		return err
	}
	path := journal.PathIn(paths.Home)
	p := &logPrinter{w: env.Stdout, json: c.JSON, colour: useColour(env)}
	if len(journal.Files(path)) == 0 && !c.Follow {
		env.Warnf("no firing recorded yet in %s%s", path, journalOffNote(paths.Config))
		return nil
	}
	bad, end, err := journal.ReadAll(path, filter, p.print)
	if err != nil {
		return err
	}
	if bad > 0 {
		env.Warnf("%s: %d lines are not journal records; skipped", path, bad)
	}
	if !c.Follow {
		return nil
	}
	ctx, stop := signalContext()
	defer stop()
	return journal.Follow(ctx, path, end, filter, 200*time.Millisecond, p.print)
}

func (c *LogCmd) filter(now time.Time) (journal.Filter, error) {
	f := journal.Filter{Event: c.Event, Session: c.Session, Hook: c.Hook, Blocked: c.Blocked}
	if c.Since != "" {
		since, err := parseSince(c.Since, now)
		if err != nil {
			return f, usageError("--since: %v", err)
		}
		f.Since = since
	}
	return f, nil
}

// parseSince reads --since: a duration back from now, or a time.
func parseSince(s string, now time.Time) (time.Time, error) {
	if d, err := time.ParseDuration(s); err == nil {
		if d < 0 {
			return time.Time{}, fmt.Errorf("%q is negative; give how long ago, e.g. 10m", s)
		}
		return now.Add(-d), nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is neither a duration (10m, 2h) nor a time (2026-11-30T10:00:00Z)", s)
}

// journalOffNote adds why nothing is recorded when the config says so.
func journalOffNote(configPath string) string {
	cfg, err := config.Load(configPath)
	if err == nil && cfg.JournalOff {
		return fmt.Sprintf(" (the journal is off: journal: false in %s)", configPath)
	}
	return ""
}

// useColour: colour on a terminal only, and never with NO_COLOR set or a dumb
// terminal.
func useColour(env *Env) bool {
	if env.Getenv("NO_COLOR") != "" || env.Getenv("TERM") == "dumb" {
		return false
	}
	f, ok := env.Stdout.(*os.File)
	return ok && isTerminal(f)
}

// logPrinter prints records, as JSON lines or a few lines each.
type logPrinter struct {
	w      io.Writer
	json   bool
	colour bool
	n      int
}

const (
	ansiRed    = "\x1b[31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
	ansiBold   = "\x1b[1m"
	ansiDim    = "\x1b[2m"
	ansiReset  = "\x1b[0m"
)

func (p *logPrinter) paint(code, s string) string {
	if !p.colour || s == "" {
		return s
	}
	return code + s + ansiReset
}

func (p *logPrinter) print(r journal.Record) error {
	if p.json {
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		_, err = p.w.Write(append(b, '\n'))
		return err
	}
	var b strings.Builder
	if p.n > 0 {
		b.WriteByte('\n')
	}
	p.n++
	head := []string{p.paint(ansiBold, r.Time.UTC().Format("2006-01-02 15:04:05")), p.paint(ansiBold, r.Event)}
	if r.AgentEvent != "" {
		head = append(head, fmt.Sprintf("(%s %s)", r.Dialect, r.AgentEvent))
	}
	head = append(head, "via "+r.Via)
	if r.Session != "" {
		head = append(head, "session "+r.Session)
	}
	if r.Tool != "" {
		head = append(head, "tool "+r.Tool)
	}
	head = append(head, fmt.Sprintf("took %s", msText(r.DurationMS)))
	fmt.Fprintf(&b, "%s\n", strings.Join(head, "  "))
	if r.SafeMode {
		fmt.Fprintf(&b, "  %s\n", p.paint(ansiYellow, "safe mode: no hook was registered (NOORA_SAFE_MODE)"))
	}
	for _, h := range r.Hooks {
		name := h.Hook
		if h.Source != "shell" {
			name = h.Source + " " + h.Hook
		}
		if h.Where != "" {
			name += " " + p.paint(ansiDim, "("+h.Where+")")
		}
		if !h.Ran {
			fmt.Fprintf(&b, "  %s %s\n", p.paint(ansiYellow, "skipped"), name)
			fmt.Fprintf(&b, "          %s: %s\n", h.Reason, h.Detail)
			continue
		}
		status := h.Status
		if h.ExitCode != nil {
			status += fmt.Sprintf(", exit %d", *h.ExitCode)
		}
		status += ", took " + msText(h.DurationMS)
		if h.Answer != "" && h.Answer != "none" {
			status += ", answer " + h.Answer
		}
		if h.Drift {
			status += ", script changed since approval"
		}
		mark := p.paint(ansiGreen, "ran    ")
		if h.Status != "ok" {
			mark = p.paint(ansiRed, "ran    ")
		}
		fmt.Fprintf(&b, "  %s %s: %s\n", mark, name, status)
		for _, out := range []struct{ name, text string }{{"stdout", h.Stdout}, {"stderr", h.Stderr}} {
			if t := strings.TrimSpace(out.text); t != "" {
				fmt.Fprintf(&b, "          %s: %s\n", out.name, strings.ReplaceAll(strings.ReplaceAll(t, "\r\n", "⏎"), "\n", "⏎"))
			}
		}
	}
	if r.HooksOmitted > 0 {
		fmt.Fprintf(&b, "  ... and %d more hooks\n", r.HooksOmitted)
	}
	answer := string(r.Answer)
	if r.Blocked() {
		answer = p.paint(ansiRed, answer)
	}
	fmt.Fprintf(&b, "  answer  %s\n", answer)
	_, err := io.WriteString(p.w, b.String())
	return err
}

// msText writes milliseconds for people: 0.4ms, 12ms, 1.2s.
func msText(ms float64) string {
	switch {
	case ms >= 1000:
		return fmt.Sprintf("%.1fs", ms/1000)
	case ms >= 10:
		return fmt.Sprintf("%.0fms", ms)
	default:
		return fmt.Sprintf("%.1fms", ms)
	}
}
