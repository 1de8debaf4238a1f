// Command e2e drives the real Claude Code, Gemini CLI and Codex CLI offline,
// each against a local fake model, with noora-hooks as its one hook
// (`exec --dialect`), and checks that Noora's answers reach each agent:
// block, rewrite, context, stop and pass-through. It installs the pinned
// versions from npm into a cache directory the first time.
//
//	go run ./e2e [-bin bin/noora-hooks] [-cache DIR] [-agents claude,gemini,codex] [-scenarios a,b] [-keep] [-capture DIR]
//
// -capture saves every hook payload the agents send: that is how the real
// payloads under internal/compat/testdata are recorded.
//
// It needs node and npm, and the network once, for the installs; the runs
// themselves talk only to 127.0.0.1. `make e2e` runs it; `make test` does
// not.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// The shell command the fake model asks every agent to run, and what the
// rewrite scenario turns it into: the file they write says which ran.
const (
	toolCommand    = "echo original > ran.txt"
	rewriteCommand = "echo rewritten > ran.txt"
	runTimeout     = 150 * time.Second
)

// scenario is one Noora config and what each agent must then have done.
type scenario struct {
	name   string
	config string            // the Noora config.yaml; {{NOORA}} is its directory
	files  map[string]string // more files in that directory
	check  func(r *run) error
	// xfail names agents whose bridge does not carry this answer yet, with
	// the reason; their failure is reported, not counted.
	xfail map[string]string
	// claude, when set, are the tool calls the model asks Claude Code for
	// in turn, instead of the one shell command; {{PROJECT}} in their
	// inputs is the project directory, {{PAGE}} a web page's address. Such a
	// scenario runs for Claude Code only.
	claude []toolCall
}

var scenarios = []scenario{
	{name: "pass-through",
		config: "hooks:\n  pre_tool_call:\n    - command: sh -c 'cat > /dev/null'\n",
		check: func(r *run) error {
			return r.ran("original")
		}},
	{name: "block",
		config: "hooks:\n  pre_tool_call:\n    - matcher: terminal\n      command: sh -c 'cat >/dev/null; echo \"{\\\"action\\\":\\\"block\\\",\\\"message\\\":\\\"E2E-BLOCKED\\\"}\"'\n",
		check: func(r *run) error {
			if err := r.ran(""); err != nil {
				return err
			}
			return r.modelSaw("E2E-BLOCKED")
		}},
	{name: "rewrite",
		config: "hooks:\n  pre_tool_call:\n    - matcher: terminal\n      command: sh -c 'cat >/dev/null; echo \"{\\\"action\\\":\\\"modify\\\",\\\"args\\\":{\\\"command\\\":\\\"" + rewriteCommand + "\\\"}}\"'\n",
		check: func(r *run) error {
			return r.ran("rewritten")
		}},
	{name: "context",
		config: "hooks:\n  pre_llm_call:\n    - command: sh -c 'cat >/dev/null; echo \"{\\\"context\\\":\\\"E2E-CONTEXT\\\"}\"'\n",
		check: func(r *run) error {
			if err := r.ran("original"); err != nil {
				return err
			}
			return r.modelSaw("E2E-CONTEXT")
		}},
	{name: "stop",
		// A hook in Gemini CLI's dialect asks to stop the agent before the
		// model is called (continue: false); Noora carries it as "stop".
		config: "hooks:\n  pre_llm_call:\n    - dialect: gemini\n      command: sh -c 'cat >/dev/null; echo \"{\\\"continue\\\":false,\\\"stopReason\\\":\\\"E2E-STOP\\\"}\"'\n",
		check: func(r *run) error {
			if err := r.ran(""); err != nil {
				return err
			}
			for _, q := range r.fake.Requests() {
				if q.OffersShell {
					return fmt.Errorf("the agent went on to ask the model (%s)", q.Path)
				}
			}
			return nil
		}},
	{name: "tool-context",
		// A Gemini-dialect hook adds context to a tool's result.
		config: "hooks:\n  post_tool_call:\n    - dialect: gemini\n      command: sh -c 'cat >/dev/null; echo \"{\\\"hookSpecificOutput\\\":{\\\"additionalContext\\\":\\\"E2E-TOOL-CONTEXT\\\"}}\"'\n",
		check: func(r *run) error {
			if err := r.ran("original"); err != nil {
				return err
			}
			return r.modelSaw("E2E-TOOL-CONTEXT")
		}},
	{name: "approve",
		// Noora wants a person to look: no agent may run the command
		// unasked (Gemini asks, which ends a headless run; Codex cannot ask
		// and is told to refuse).
		config: "hooks:\n  pre_tool_call:\n    - matcher: terminal\n      command: sh -c 'cat >/dev/null; echo \"{\\\"action\\\":\\\"approve\\\",\\\"message\\\":\\\"E2E-LOOK\\\"}\"'\n",
		check: func(r *run) error {
			return r.ran("")
		}},
	{name: "continue",
		// The verify gate keeps the agent going once.
		config: "hooks:\n  pre_verify:\n    - command: sh {{NOORA}}/continue.sh\n",
		files:  map[string]string{"continue.sh": "if grep -q '\"attempt\": *0'; then echo '{\"action\":\"continue\",\"message\":\"E2E-KEEP-GOING\"}'; fi\n"},
		check: func(r *run) error {
			return r.modelSaw("E2E-KEEP-GOING")
		}},
	{name: "tool-results",
		// Claude Code's own tools, each once; with -capture, their
		// PostToolUse payloads are internal/compat/testdata/claude. The
		// Noora hook keeps what it was given: Noora's tools and results.
		config: "hooks:\n  post_tool_call:\n    - command: sh -c 'cat >> {{NOORA}}/post.jsonl; echo >> {{NOORA}}/post.jsonl'\n",
		claude: []toolCall{
			{"Write", map[string]any{"file_path": "{{PROJECT}}/notes.txt", "content": "alpha\nbeta\n"}},
			{"Edit", map[string]any{"file_path": "{{PROJECT}}/notes.txt", "old_string": "beta", "new_string": "gamma"}},
			{"Read", map[string]any{"file_path": "{{PROJECT}}/notes.txt"}},
			{"Write", map[string]any{"file_path": "{{PROJECT}}/notes.txt", "content": "alpha\ngamma\nomega\n"}},
			{"Glob", map[string]any{"pattern": "*.txt"}},
			{"Grep", map[string]any{"pattern": "gamma"}},
			{"Grep", map[string]any{"pattern": "gamma", "output_mode": "content", "-n": true}},
			{"Grep", map[string]any{"pattern": "a", "output_mode": "count"}},
			{"WebFetch", map[string]any{"url": "{{PAGE}}", "prompt": "summarize"}},
			{"WebSearch", map[string]any{"query": "noora hooks"}},
			{"Agent", map[string]any{"description": "e2e", "prompt": "say done", "subagent_type": "general-purpose", "run_in_background": false}},
		},
		check: func(r *run) error {
			for _, q := range r.fake.Requests() {
				if i := strings.Index(q.Body, "tool_use_error"); i >= 0 {
					return fmt.Errorf("a tool call failed: %s", tail(q.Body[:min(len(q.Body), i+200)], 300))
				}
			}
			if err := r.modelSaw("E2E page is the one result."); err != nil {
				return err
			}
			// Each tool's result reached the Noora hook in Noora's shape.
			for _, want := range []struct{ tool, key string }{
				{"write_file", "bytes_written"}, {"patch", "diff"}, {"read_file", "content"},
				{"search_files", "files"}, {"search_files", "matches"}, {"search_files", "counts"},
				{"web_extract", "results"}, {"web_search", "data"}, {"delegate_task", ""},
			} {
				if err := r.nooraSaw(want.tool, want.key); err != nil {
					return err
				}
			}
			return nil
		}},
}

func main() {
	bin := flag.String("bin", "bin/noora-hooks", "the noora-hooks binary to put behind the agents")
	cache := flag.String("cache", defaultCache(), "where the agents are installed from npm")
	only := flag.String("agents", "claude,gemini,codex", "which agents to drive")
	keep := flag.Bool("keep", false, "keep each run's directory and say where")
	pick := flag.String("scenarios", "", "run only these scenarios (comma-separated; default: all)")
	capture := flag.String("capture", "", "also save every hook payload each agent sends, under DIR/<agent>/<scenario>/<event>-*.json")
	flag.Parse()
	wanted := map[string]bool{}
	for _, n := range strings.Split(*pick, ",") {
		if n = strings.TrimSpace(n); n != "" {
			wanted[n] = true
		}
	}

	abs, err := filepath.Abs(*bin)
	if err == nil {
		_, err = os.Stat(abs)
	}
	if err != nil {
		fatalf("the noora-hooks binary %s: %v (make build first)", *bin, err)
	}
	failed, passed, xfailed := 0, 0, 0
	for _, name := range strings.Split(*only, ",") {
		a, ok := agents[strings.TrimSpace(name)]
		if !ok {
			fatalf("unknown agent %q (claude, gemini, codex)", name)
		}
		exe, err := a.install(*cache)
		if err != nil {
			fatalf("install %s: %v", a.name, err)
		}
		fmt.Printf("== %s %s (%s)\n", a.title, a.version, exe)
		for _, sc := range scenarios {
			if len(wanted) > 0 && !wanted[sc.name] || sc.claude != nil && a.name != "claude" {
				continue
			}
			record := ""
			if *capture != "" {
				if record, err = filepath.Abs(filepath.Join(*capture, a.name, sc.name)); err == nil {
					err = os.MkdirAll(record, 0o755)
				}
				if err != nil {
					fatalf("capture: %v", err)
				}
			}
			r, err := drive(a, exe, abs, sc, record)
			if err == nil {
				err = sc.check(r)
			}
			if err == nil && a.healthy != nil {
				err = a.healthy(r)
			}
			why, expected := sc.xfail[a.name]
			switch {
			case err == nil && expected:
				passed++
				fmt.Printf("   %-13s XPASS (expected to fail: %s)\n", sc.name, why)
			case err == nil:
				passed++
				fmt.Printf("   %-13s ok    %s\n", sc.name, r.summary())
			case expected:
				xfailed++
				fmt.Printf("   %-13s XFAIL %v (%s)\n", sc.name, err, why)
			default:
				failed++
				fmt.Printf("   %-13s FAIL  %v\n", sc.name, err)
				if r != nil {
					fmt.Printf("                 %s\n", r.summary())
					if s := strings.TrimSpace(tail(r.stderr, 600)); s != "" {
						fmt.Printf("                 agent stderr: %s\n", strings.ReplaceAll(s, "\n", "\n                 "))
					}
				}
			}
			if r != nil && *keep {
				fmt.Printf("                 kept: %s\n", r.dir)
			} else if r != nil {
				os.RemoveAll(r.dir)
			}
		}
	}
	fmt.Printf("e2e: %d passed, %d failed, %d expected failures\n", passed, failed, xfailed)
	if failed > 0 {
		os.Exit(1)
	}
}

// run is one agent session.
type run struct {
	dir, project string
	fake         *fakeModel
	stdout       string
	stderr       string
	exit         error
}

// ran checks what the shell tool wrote: want "" means it must not have run.
func (r *run) ran(want string) error {
	b, err := os.ReadFile(filepath.Join(r.project, "ran.txt"))
	got := strings.TrimSpace(string(b))
	switch {
	case want == "" && err == nil:
		return fmt.Errorf("the shell command ran (ran.txt: %q)", got)
	case want == "":
		return nil
	case err != nil:
		return fmt.Errorf("the shell command did not run (%v)", errors.Unwrap(err))
	case got != want:
		return fmt.Errorf("ran.txt holds %q, want %q", got, want)
	}
	return nil
}

// modelSaw checks that some request to the model carried text.
func (r *run) modelSaw(text string) error {
	for _, q := range r.fake.Requests() {
		if strings.Contains(q.Body, text) {
			return nil
		}
	}
	return fmt.Errorf("no model request carried %q", text)
}

// nooraSaw checks that the Noora hook of a post_tool_call was given a call
// of tool whose result, read as JSON, has key ("": any result).
func (r *run) nooraSaw(tool, key string) error {
	b, err := os.ReadFile(filepath.Join(r.dir, "noora", "post.jsonl"))
	if err != nil {
		return fmt.Errorf("the Noora hook kept nothing: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		var p struct { // SPEC §4: the result is one of the extra kwargs
			ToolName string `json:"tool_name"`
			Extra    struct {
				Result string `json:"result"`
			} `json:"extra"`
		}
		if json.Unmarshal([]byte(line), &p) != nil || p.ToolName != tool {
			continue
		}
		var result map[string]any
		if key == "" || json.Unmarshal([]byte(p.Extra.Result), &result) == nil && result[key] != nil {
			return nil
		}
	}
	return fmt.Errorf("no %s result with %q reached the Noora hook; its last payload: %s", tool, key, tail(string(b), 400))
}

func (r *run) summary() string {
	var kinds []string
	for _, q := range r.fake.Requests() {
		kinds = append(kinds, q.Answer)
	}
	b, _ := os.ReadFile(filepath.Join(r.project, "ran.txt"))
	return fmt.Sprintf("(model requests: %s; ran.txt: %q; exit: %v)", strings.Join(kinds, ","), strings.TrimSpace(string(b)), exitText(r.exit))
}

func exitText(err error) string {
	if err == nil {
		return "0"
	}
	return err.Error()
}

// drive runs one agent session for one scenario; record, when set, is
// where each hook payload is saved too.
func drive(a *agent, exe, bin string, sc scenario, record string) (*run, error) {
	dir, err := os.MkdirTemp("", "noora-e2e-"+a.name+"-")
	if err != nil {
		return nil, err
	}
	r := &run{dir: dir, project: filepath.Join(dir, "project")}
	noora := filepath.Join(dir, "noora")
	home := filepath.Join(dir, "home")
	for _, d := range []string{r.project, noora, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return r, err
		}
	}
	if err := os.WriteFile(filepath.Join(noora, "config.yaml"), []byte(strings.ReplaceAll(sc.config, "{{NOORA}}", noora)), 0o644); err != nil {
		return r, err
	}
	for name, text := range sc.files {
		if err := os.WriteFile(filepath.Join(noora, name), []byte(text), 0o644); err != nil {
			return r, err
		}
	}
	fake, err := startFake(toolCommand, nil)
	if err != nil {
		return r, err
	}
	defer fake.Close()
	r.fake = fake
	if fake.claudeCalls, err = expand(sc.claude, map[string]string{"{{PROJECT}}": r.project, "{{PAGE}}": fake.PageURL()}); err != nil {
		return r, err
	}
	hook := fmt.Sprintf("NOORA_HOME=%s %s exec --dialect %s --accept-hooks", shQuote(noora), shQuote(bin), a.name)
	s := setup{home: home, project: r.project, hook: hook, url: fake.URL(), record: record}
	for _, c := range sc.claude {
		s.tools = append(s.tools, c.Name)
	}
	argv, env, err := a.setup(s)
	if err != nil {
		return r, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, argv...)
	cmd.Dir = r.project
	cmd.Env = append(baseEnv(home), env...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	r.exit = cmd.Run()
	r.stdout, r.stderr = stdout.String(), stderr.String()
	if ctx.Err() != nil {
		return r, fmt.Errorf("%s did not finish within %s", a.title, runTimeout)
	}
	return r, nil
}

// expand puts the run's values into the tool calls' inputs, by their
// placeholders.
func expand(calls []toolCall, values map[string]string) ([]toolCall, error) {
	if calls == nil {
		return nil, nil
	}
	b, err := json.Marshal(calls)
	if err != nil {
		return nil, err
	}
	text := string(b)
	for k, v := range values {
		quoted, _ := json.Marshal(v)
		text = strings.ReplaceAll(text, k, string(quoted[1:len(quoted)-1]))
	}
	var out []toolCall
	err = json.Unmarshal([]byte(text), &out)
	return out, err
}

func baseEnv(home string) []string {
	path := os.Getenv("PATH")
	if path == "" {
		path = "/usr/local/bin:/usr/bin:/bin"
	}
	lang := os.Getenv("LANG")
	if lang == "" {
		lang = "C.UTF-8"
	}
	return []string{"PATH=" + path, "HOME=" + home, "TERM=dumb", "LANG=" + lang, "NO_COLOR=1",
		"NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost"}
}

func writeJSONFile(path string, v any) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

func shQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}

func defaultCache() string {
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "noora-hooks-e2e")
	}
	return filepath.Join(os.TempDir(), "noora-hooks-e2e")
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "e2e: "+format+"\n", args...)
	os.Exit(2)
}
