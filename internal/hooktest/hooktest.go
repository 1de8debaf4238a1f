// Package hooktest runs hook tests: testscript scenarios that fire events at
// the configured hooks and check what they answered (docs/hook-tests.md). It
// is the noora-hooks-check program, not a part of noora-hooks itself: it
// links testscript, and go/build with it, whose start-up exec must not pay.
package hooktest

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/noora-hooks/noora-hooks/internal/config"
)

// Options are what noora-hooks check passes on.
type Options struct {
	Paths   []string
	Filter  string
	Verbose bool
	JSON    bool
}

// Main is the noora-hooks-check program: `noora-hooks-check [--home DIR]
// [--config FILE] [--run REGEXP] [-v] [--json] [--] [DIR|FILE...]`, with the
// flags of noora-hooks check. It returns the exit status.
func Main(args []string, env *Env) int {
	fs := flag.NewFlagSet("noora-hooks-check", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	var g globals
	var o Options
	fs.StringVar(&g.Home, "home", "", "Noora home directory")
	fs.StringVar(&g.Config, "config", "", "config file")
	fs.StringVar(&o.Filter, "run", "", "run only the scenarios whose name matches this regular expression")
	fs.BoolVar(&o.Verbose, "v", false, "print the log of every scenario")
	fs.BoolVar(&o.JSON, "json", false, "print the results as JSON")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	o.Paths = fs.Args()
	if err := o.run(&g, env); err != nil {
		var ec interface{ ExitCode() int }
		if errors.As(err, &ec) {
			fmt.Fprintf(env.Stderr, "noora-hooks: error: %v\n", err)
			return ec.ExitCode()
		}
		if !errors.Is(err, errFailed) {
			fmt.Fprintf(env.Stderr, "noora-hooks: error: %v\n", err)
		}
		return 1
	}
	return 0
}

// errFailed: a scenario failed, and the report said so.
var errFailed = errors.New("a scenario failed")

type usage struct{ err error }

func (u usage) Error() string { return u.err.Error() }
func (u usage) ExitCode() int { return 2 }

// checkResult is one scenario's outcome.
type checkResult struct {
	Name       string  `json:"name"`
	File       string  `json:"file"`
	Passed     bool    `json:"passed"`
	Skipped    bool    `json:"skipped"`
	DurationMS float64 `json:"duration_ms"`
	Log        string  `json:"log,omitempty"`
}

type checkReport struct {
	Scenarios []checkResult `json:"scenarios"`
	Passed    int           `json:"passed"`
	Failed    int           `json:"failed"`
	Skipped   int           `json:"skipped"`
}

// Run runs the scenarios, one after the other, and exits 1 when one fails.
func (c *Options) run(g *globals, env *Env) error {
	var filter *regexp.Regexp
	if c.Filter != "" {
		re, err := regexp.Compile(c.Filter)
		if err != nil {
			return usage{fmt.Errorf("--run: %v", err)}
		}
		filter = re
	}
	paths, err := config.Resolve(g.Home, g.Config, env.Getenv)
	if err != nil {
		return err
	}
	files, err := c.scenarios(paths.Home, filter)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		env.Warnf("no hook tests to run (looked in %s)", strings.Join(c.where(paths.Home), ", "))
		return nil
	}
	start := time.Now()
	h := &checkHarness{g: g, paths: paths, env: env, files: map[string]string{}, filesList: files}
	root := &checkT{h: h}
	testscript.RunT(root, testscript.Params{
		Files:    files,
		Setup:    h.setup,
		Cmds:     h.commands(),
		Deadline: time.Now().Add(30 * time.Minute),
	})
	rep := checkReport{Scenarios: []checkResult{}}
	for _, r := range h.results {
		switch {
		case r.Skipped:
			rep.Skipped++
		case r.Passed:
			rep.Passed++
		default:
			rep.Failed++
		}
		rep.Scenarios = append(rep.Scenarios, r)
	}
	if c.JSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		c.print(env, rep, time.Since(start))
	}
	if rep.Failed > 0 {
		return errFailed
	}
	return nil
}

func (c *Options) where(home string) []string {
	if len(c.Paths) > 0 {
		return c.Paths
	}
	return []string{filepath.Join(home, "hook-tests"), filepath.Join(".noora", "hook-tests")}
}

// scenarios lists the scenario files of the paths, each directory's in name
// order; a default directory that does not exist is no error.
func (c *Options) scenarios(home string, filter *regexp.Regexp) ([]string, error) {
	var files []string
	for _, p := range c.where(home) {
		st, err := os.Stat(p)
		if err != nil {
			if len(c.Paths) == 0 && os.IsNotExist(err) {
				continue
			}
			return nil, fmt.Errorf("hook tests %s: %w", p, err)
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		entries, err := os.ReadDir(p)
		if err != nil {
			return nil, fmt.Errorf("hook tests %s: %w", p, err)
		}
		for _, e := range entries {
			if !e.IsDir() && (strings.HasSuffix(e.Name(), ".txtar") || strings.HasSuffix(e.Name(), ".txt")) {
				files = append(files, filepath.Join(p, e.Name()))
			}
		}
	}
	var out []string
	for _, f := range files {
		if filter == nil || filter.MatchString(scenarioName(f)) {
			abs, err := filepath.Abs(f)
			if err != nil {
				return nil, err
			}
			out = append(out, abs)
		}
	}
	return out, nil
}

func scenarioName(file string) string {
	name := filepath.Base(file)
	name = strings.TrimSuffix(name, ".txtar")
	return strings.TrimSuffix(name, ".txt")
}

// print writes the results as go test does: the log of what failed, then one
// line.
func (c *Options) print(env *Env, rep checkReport, took time.Duration) {
	w := env.Stdout
	for _, r := range rep.Scenarios {
		verdict := "PASS"
		switch {
		case r.Skipped:
			verdict = "SKIP"
		case !r.Passed:
			verdict = "FAIL"
		}
		if verdict == "PASS" && !c.Verbose {
			continue
		}
		fmt.Fprintf(w, "--- %s: %s (%s)\n", verdict, r.Name, secondsText(r.DurationMS))
		if r.Log != "" && (verdict != "PASS" || c.Verbose) {
			for _, line := range strings.Split(strings.TrimRight(r.Log, "\n"), "\n") {
				fmt.Fprintf(w, "    %s\n", line)
			}
		}
	}
	summary := fmt.Sprintf("%d passed", rep.Passed)
	if rep.Skipped > 0 {
		summary += fmt.Sprintf(", %d skipped", rep.Skipped)
	}
	if rep.Failed > 0 {
		fmt.Fprintf(w, "FAIL\t%d failed, %s\t%s\n", rep.Failed, summary, secondsText(float64(took.Milliseconds())))
		return
	}
	fmt.Fprintf(w, "ok\t%s\t%s\n", summary, secondsText(float64(took.Milliseconds())))
}

func secondsText(ms float64) string { return fmt.Sprintf("%.2fs", ms/1000) }

// checkHarness is what the scenarios of one check share.
type checkHarness struct {
	g     *globals
	paths config.Paths
	env   *Env

	filesList []string // the scenario files of this run

	mu      sync.Mutex
	files   map[string]string // scenario name → file
	results []checkResult
}

// checkT is testscript's T for check: scenarios run one after the other,
// each in a goroutine of its own that FailNow ends, as testing's does.
type checkT struct {
	h       *checkHarness
	name    string
	log     strings.Builder
	failed  bool
	skipped bool
}

func (t *checkT) Skip(args ...any) {
	t.Log(args...)
	t.skipped = true
	runtime.Goexit()
}

func (t *checkT) Fatal(args ...any) {
	t.Log(args...)
	t.FailNow()
}

func (t *checkT) Parallel() {}

func (t *checkT) Log(args ...any) {
	fmt.Fprintln(&t.log, args...)
}

func (t *checkT) FailNow() {
	t.failed = true
	runtime.Goexit()
}

func (t *checkT) Verbose() bool { return false }

// Run runs one scenario and records it; the root T runs nothing itself.
func (t *checkT) Run(name string, f func(testscript.T)) {
	sub := &checkT{h: t.h, name: name}
	start := time.Now()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(sub)
	}()
	<-done
	h := t.h
	h.mu.Lock()
	defer h.mu.Unlock()
	h.results = append(h.results, checkResult{
		Name: name, File: h.files[name], Passed: !sub.failed && !sub.skipped, Skipped: sub.skipped,
		DurationMS: float64(time.Since(start).Microseconds()) / 1000, Log: strings.TrimSpace(sub.log.String()),
	})
}

// Fatal on the root T is a problem of check itself (no scenario found).
var _ testscript.T = (*checkT)(nil)

func (h *checkHarness) setup(e *testscript.Env) error {
	t, _ := e.T().(*checkT)
	// The scenario's file is found by name: RunT names each run after
	// its file, without the extension.
	if t != nil {
		for _, f := range h.allFiles() {
			if scenarioName(f) == t.name {
				h.mu.Lock()
				h.files[t.name] = f
				h.mu.Unlock()
				e.Setenv("SCENARIO_DIR", filepath.Dir(f))
			}
		}
	}
	// Hooks get a usable environment: the user's HOME and PATH.
	for _, k := range []string{"HOME", "PATH", "USER", "LANG", "SHELL"} {
		if v := h.env.Getenv(k); v != "" {
			e.Setenv(k, v)
		}
	}
	e.Setenv("NOORA_SAFE_MODE", "")
	e.Values[checkStateKey{}] = &checkState{}
	return nil
}

func (h *checkHarness) allFiles() []string { return h.filesList }

// jsonField reads a field of an answer by a dotted path.
func jsonField(answer []byte, path string) (string, bool) {
	var v any
	if err := json.Unmarshal(answer, &v); err != nil {
		return "", false
	}
	for _, part := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return "", false
		}
		if v, ok = m[part]; !ok {
			return "", false
		}
	}
	if s, ok := v.(string); ok {
		return s, true
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return strings.TrimSpace(b.String()), true
}
