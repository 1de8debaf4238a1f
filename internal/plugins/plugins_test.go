package plugins

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/noora-hooks/noora-hooks/internal/dispatch"

	"github.com/noora-hooks/noora-hooks/protocol"
)

// needPython skips tests of Python plugins on a machine without python3.
func needPython(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
}

// writePlugin creates <home>/plugins/<name>/ with the given files.
func writePlugin(t *testing.T, home, name string, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(home, "plugins", name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, ok := files["plugin.yaml"]; !ok {
		files["plugin.yaml"] = "name: " + name + "\nversion: 1.0.0\n"
	}
	for f, content := range files {
		mode := os.FileMode(0o644)
		if strings.HasSuffix(f, ".sh") {
			mode = 0o755
		}
		if err := os.WriteFile(filepath.Join(dir, f), []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// python writes a Python plugin.
func python(t *testing.T, home, name, src string) string {
	return writePlugin(t, home, name, map[string]string{"__init__.py": src})
}

// script writes a command plugin run by /bin/sh.
func script(t *testing.T, home, name, src string) string {
	return writePlugin(t, home, name, map[string]string{
		"plugin.yaml": "name: " + name + "\ncommand: /bin/sh ./plugin.sh\n",
		"plugin.sh":   src,
	})
}

// recorder collects warnings and logs.
type recorder struct {
	mu       sync.Mutex
	warnings []string
	logs     []string
}

func (r *recorder) warn(msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.warnings = append(r.warnings, msg)
}

func (r *recorder) log(plugin, line string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.logs = append(r.logs, plugin+": "+line)
}

func (r *recorder) all() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.warnings, "\n")
}

func newManager(t *testing.T, home string, opts Options) (*Manager, *recorder) {
	t.Helper()
	rec := &recorder{}
	opts.Home = home
	opts.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	if opts.CallbackTimeout == 0 {
		opts.CallbackTimeout = 20 * time.Second
	}
	if opts.StartTimeout == 0 {
		opts.StartTimeout = 20 * time.Second
	}
	opts.Warn, opts.Log = rec.warn, rec.log
	m := NewManager(opts)
	t.Cleanup(m.Close)
	return m, rec
}

func fire(t *testing.T, m *Manager, event, kwargs string) []dispatch.Result {
	t.Helper()
	ev, ok := protocol.Lookup(event)
	if !ok {
		t.Fatalf("unknown event %s", event)
	}
	kw, err := protocol.ParseObject([]byte(kwargs))
	if err != nil {
		t.Fatal(err)
	}
	call := dispatch.Call{Event: ev, Kwargs: kw, Cwd: t.TempDir()}
	return dispatch.RunAll(context.Background(), call, m.Hooks(context.Background(), call), 4)
}

func names(results []dispatch.Result) string {
	var out []string
	for _, r := range results {
		out = append(out, r.Name+"="+string(r.Status))
	}
	return strings.Join(out, " ")
}

func TestCallbacksRunInDirectoryThenRegistrationOrder(t *testing.T) {
	needPython(t)
	home := t.TempDir()
	python(t, home, "b-second", `
def one(**kw): return "b1"
def two(**kw): return "b2"
def register(ctx):
    ctx.register_hook("pre_llm_call", one)
    ctx.register_hook("post_llm_call", one)
    ctx.register_hook("pre_llm_call", two)
`)
	python(t, home, "a-first", `
def register(ctx):
    ctx.register_hook("pre_llm_call", lambda **kw: {"context": "a"})
`)
	m, _ := newManager(t, home, Options{})
	res := fire(t, m, "pre_llm_call", `{"session_id":"s"}`)
	if got, want := names(res), "a-first:<lambda>=ok b-second:one=ok b-second:two=ok"; got != want {
		t.Fatalf("hooks: %s\nwant:  %s", got, want)
	}
	var texts []string
	for _, r := range res {
		texts = append(texts, r.Answer.Text)
	}
	if got := strings.Join(texts, ","); got != "a,b1,b2" {
		t.Errorf("answers %s, want a,b1,b2", got)
	}
}

func TestPythonCallbacksGetWhatTheyDeclare(t *testing.T) {
	needPython(t)
	home := t.TempDir()
	out := filepath.Join(t.TempDir(), "seen")
	python(t, home, "narrow", `
import json, os
def narrow(tool_name):
    return "narrow got " + tool_name
def keyword_only(*, args, task_id="none"):
    return "args " + json.dumps(args) + " task " + task_id
def everything(**kwargs):
    return ",".join(sorted(kwargs))
class Weird:
    def __str__(self): return "a Weird object"
def weird(**kw):
    return Weird()
async def later(tool_name, **kw):
    import asyncio
    await asyncio.sleep(0.01)
    return "async " + tool_name
def noisy(**kw):
    print("this goes to the log, not the protocol")
    os.write(1, b"so does this\n")
    return "quiet"
def where(**kw):
    with open(OUT, "w") as f:
        f.write(os.getcwd())
def register(ctx):
    for cb in (narrow, keyword_only, everything, weird, later, noisy, where):
        ctx.register_hook("transform_tool_result", cb)
`+"OUT = "+strconv.Quote(out)+"\n")
	m, rec := newManager(t, home, Options{})
	call := `{"tool_name":"terminal","args":{"command":"ls"},"result":"r","task_id":"t1"}`
	ev, _ := protocol.Lookup("transform_tool_result")
	kw, _ := protocol.ParseObject([]byte(call))
	cwd := t.TempDir()
	res := dispatch.RunAll(context.Background(), dispatch.Call{Event: ev, Kwargs: kw, Cwd: cwd}, m.Hooks(context.Background(), dispatch.Call{Event: ev, Kwargs: kw}), 1)
	want := []string{
		"narrow got terminal",
		`args {"command": "ls"} task t1`,
		"args,result,task_id,tool_name",
		"a Weird object",
		"async terminal",
		"quiet",
		"",
	}
	if len(res) != len(want) {
		t.Fatalf("%d results (%s), want %d", len(res), names(res), len(want))
	}
	for i, w := range want {
		if res[i].Status != dispatch.StatusOK || res[i].Answer.Text != w {
			t.Errorf("callback %d: %s %q, want %q (warnings %q)", i, res[i].Status, res[i].Answer.Text, w, res[i].Warnings)
		}
	}
	if got, _ := os.ReadFile(out); string(got) != cwd {
		t.Errorf("the callback ran in %q, want the caller's directory %q", got, cwd)
	}
	m.Close() // its log is complete once the process is gone
	rec.mu.Lock()
	logs := strings.Join(rec.logs, "\n")
	rec.mu.Unlock()
	for _, l := range []string{"narrow: this goes to the log, not the protocol", "narrow: so does this"} {
		if !strings.Contains(logs, l) {
			t.Errorf("log lacks %q:\n%s", l, logs)
		}
	}
}

func TestACallbackThatRaisesIsSkippedAndTheNextOneRuns(t *testing.T) {
	needPython(t)
	home := t.TempDir()
	python(t, home, "boom", `
def explode(**kw):
    raise ValueError("boom")
def fine(**kw):
    return {"action": "block", "message": "still here"}
def register(ctx):
    ctx.register_hook("pre_tool_call", explode)
    ctx.register_hook("pre_tool_call", fine)
`)
	m, _ := newManager(t, home, Options{})
	res := fire(t, m, "pre_tool_call", `{"tool_name":"x"}`)
	if got := names(res); got != "boom:explode=error boom:fine=ok" {
		t.Fatalf("hooks: %s", got)
	}
	if w := strings.Join(dispatch.Strings(res[0].Warnings), ""); !strings.Contains(w, `plugin "boom": pre_tool_call callback explode raised ValueError: boom (at __init__.py:3 in explode); skipped`) {
		t.Errorf("warning: %s", w)
	}
	if res[1].Answer.Kind != protocol.Block || res[1].Answer.Message != "still here" {
		t.Errorf("answer: %+v", res[1].Answer)
	}
}

func TestAPluginKilledMidCallIsSkippedAndRestartsOnTheNextEvent(t *testing.T) {
	needPython(t)
	home := t.TempDir()
	python(t, home, "victim", `
import os, time
def slow(**kw):
    time.sleep(60)
def pid(**kw):
    return str(os.getpid())
def register(ctx):
    ctx.register_hook("pre_llm_call", pid)
    ctx.register_hook("transform_llm_output", slow)
    ctx.register_hook("transform_llm_output", pid)
`)
	m, _ := newManager(t, home, Options{})
	first := fire(t, m, "pre_llm_call", `{}`)
	if len(first) != 1 || first[0].Answer.Text == "" {
		t.Fatalf("first event: %s", names(first))
	}
	pid := first[0].Answer.Text

	// Kill the plugin's process group while its callback runs.
	proc := m.slots[0].proc
	go func() {
		time.Sleep(300 * time.Millisecond)
		_ = syscall.Kill(-proc.Pid(), syscall.SIGKILL)
	}()
	start := time.Now()
	res := fire(t, m, "transform_llm_output", `{}`)
	if took := time.Since(start); took > 20*time.Second {
		t.Fatalf("the event took %v", took)
	}
	if got := names(res); got != "victim:slow=error victim:pid=skipped" {
		t.Fatalf("hooks: %s", got)
	}
	if w := res[0].Warnings[0]; !strings.Contains(w.String(), "died while running its transform_llm_output callback slow: it was killed by signal 9") {
		t.Errorf("warning: %s", w)
	}
	if w := res[1].Warnings[0]; !strings.Contains(w.String(), "ended earlier in this event") {
		t.Errorf("warning: %s", w)
	}

	t.Logf("kill event took %v", time.Since(start))
	start = time.Now()
	again := fire(t, m, "pre_llm_call", `{}`)
	t.Logf("restart event took %v", time.Since(start))
	if len(again) != 1 || again[0].Status != dispatch.StatusOK || again[0].Answer.Text == "" || again[0].Answer.Text == pid {
		t.Fatalf("after the kill: %s, pid %q (was %s)", names(again), again[0].Answer.Text, pid)
	}
}

func TestACallbackThatTimesOutStopsItsProcess(t *testing.T) {
	needPython(t)
	home := t.TempDir()
	python(t, home, "sleepy", `
import time
def sleepy(**kw):
    time.sleep(60)
def register(ctx):
    ctx.register_hook("on_session_start", sleepy)
`)
	m, _ := newManager(t, home, Options{CallbackTimeout: 500 * time.Millisecond})
	start := time.Now()
	res := fire(t, m, "on_session_start", `{}`)
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("the event took %v", took)
	}
	if len(res) != 1 || res[0].Status != dispatch.StatusTimeout {
		t.Fatalf("hooks: %s", names(res))
	}
	if w := res[0].Warnings[0]; !strings.Contains(w.String(), "on_session_start callback sleepy timed out after 500ms; skipped, and the plugin's process was stopped") {
		t.Errorf("warning: %s", w)
	}
	proc := m.slots[0].proc
	select {
	case <-proc.child.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the timed-out plugin's process is still running")
	}
}

func TestAPluginThatCannotStartSaysWhy(t *testing.T) {
	needPython(t)
	tests := []struct {
		name   string
		setup  func(t *testing.T, home string)
		python string // the interpreter, when not python3
		want   string
	}{
		{
			name: "register() raises",
			setup: func(t *testing.T, home string) {
				python(t, home, "p", "def register(ctx):\n    raise RuntimeError('no config')\n")
			},
			want: `plugin "p" cannot run: register() failed: RuntimeError: no config (at __init__.py:2 in register)`,
		},
		{
			name: "The package does not import",
			setup: func(t *testing.T, home string) {
				python(t, home, "p", "import no_such_module_xyz\n")
			},
			want: `importing the plugin failed: ModuleNotFoundError: No module named 'no_such_module_xyz'`,
		},
		{
			name: "There is no register()",
			setup: func(t *testing.T, home string) {
				python(t, home, "p", "x = 1\n")
			},
			want: `__init__.py defines no register(ctx) function`,
		},
		{
			name: "Another protocol version",
			setup: func(t *testing.T, home string) {
				script(t, home, "p", `echo '{"type":"hello","protocol":2}'; cat >/dev/null`)
			},
			want: `it speaks plugin protocol version 2, but this noora-hooks speaks version 1`,
		},
		{
			name: "Garbage instead of a hello",
			setup: func(t *testing.T, home string) {
				script(t, home, "p", `echo 'Hello, world'; cat >/dev/null`)
			},
			want: `plugin protocol violation: a line is not valid JSON: "Hello, world"`,
		},
		{
			name: "Something else before the hello",
			setup: func(t *testing.T, home string) {
				script(t, home, "p", `echo '{"type":"result","id":1}'; cat >/dev/null`)
			},
			want: `the first message must be a hello, got "result"`,
		},
		{
			name: "No hello in time",
			setup: func(t *testing.T, home string) {
				script(t, home, "p", `exec sleep 60`)
			},
			want: `sent no hello within 500ms; it was stopped`,
		},
		{
			name: "It exits at once",
			setup: func(t *testing.T, home string) {
				script(t, home, "p", `echo 'missing config' >&2; exit 4`)
			},
			want: `died before saying hello: it exited with status 4: missing config`,
		},
		{
			name: "A hello over the line limit",
			setup: func(t *testing.T, home string) {
				script(t, home, "p", `head -c 2000000 /dev/zero | tr '\0' x; echo; cat >/dev/null`)
			},
			want: `a message is over the 1048576-byte limit`,
		},
		{
			name: "There is no Python",
			setup: func(t *testing.T, home string) {
				python(t, home, "p", "def register(ctx): pass\n")
			},
			python: "/nonexistent/python3",
			want:   `cannot start: program not found: /nonexistent/python3; Python plugins need python3 in PATH, or NOORA_PYTHON set to an interpreter`,
		},
		{
			name: "The program is missing",
			setup: func(t *testing.T, home string) {
				writePlugin(t, home, "p", map[string]string{"plugin.yaml": "command: ./nothing-here\n"})
			},
			want: `cannot start: program not found`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			tt.setup(t, home)
			opts := Options{Python: tt.python}
			if strings.Contains(tt.want, "500ms") {
				opts.StartTimeout = 500 * time.Millisecond
			}
			m, _ := newManager(t, home, opts)
			start := time.Now()
			res := fire(t, m, "pre_tool_call", `{}`)
			if took := time.Since(start); took > 15*time.Second {
				t.Errorf("took %v", took)
			}
			if len(res) != 1 || res[0].Status != dispatch.StatusError || res[0].Name != "p" {
				t.Fatalf("hooks: %s", names(res))
			}
			if w := res[0].Warnings[0]; !strings.Contains(w.String(), tt.want) {
				t.Errorf("warning:\n%s\nwant it to contain:\n%s", w, tt.want)
			}
		})
	}
}

func TestUnsupportedContextMethodsWarnAndDoNothing(t *testing.T) {
	needPython(t)
	home := t.TempDir()
	python(t, home, "tools", `
def register(ctx):
    ctx.register_tool("x", "tools", {"type": "object"}, lambda: None)
    ctx.register_tool("y", "tools", {}, None)
    ctx.platform_actions.add_reaction("chat", "msg", "thumbs_up")
    ctx.register_hook("pre_llm_call", lambda **kw: "tools still hook")
    ctx.register_hook("pre_tool_cal", lambda **kw: None)
`)
	m, rec := newManager(t, home, Options{})
	res := fire(t, m, "pre_llm_call", `{}`)
	if len(res) != 1 || res[0].Answer.Text != "tools still hook" {
		t.Fatalf("hooks: %s", names(res))
	}
	w := rec.all()
	for _, want := range []string{
		`plugin "tools": ctx.register_tool is not supported by noora-hooks`,
		`plugin "tools": ctx.platform_actions.add_reaction is not supported`,
		`plugin "tools": registered a callback for unknown event "pre_tool_cal", which never fires; did you mean "pre_tool_call"?`,
	} {
		if !strings.Contains(w, want) {
			t.Errorf("warnings lack %q:\n%s", want, w)
		}
	}
	if n := strings.Count(w, "ctx.register_tool"); n != 1 {
		t.Errorf("register_tool warned %d times, want once", n)
	}
}

func TestWarmProcessesServeManyEventsAndRestartAfterAFailedStartOnlyAfterRetryAfter(t *testing.T) {
	needPython(t)
	home := t.TempDir()
	python(t, home, "counter", `
n = 0
def count(**kw):
    global n
    n += 1
    return str(n)
def register(ctx):
    ctx.register_hook("pre_llm_call", count)
`)
	m, _ := newManager(t, home, Options{})
	for i := 1; i <= 3; i++ {
		res := fire(t, m, "pre_llm_call", `{}`)
		if len(res) != 1 || res[0].Answer.Text != string(rune('0'+i)) {
			t.Fatalf("event %d: %+v", i, res)
		}
	}

	broken := t.TempDir()
	dir := python(t, broken, "flaky", "def register(ctx):\n    raise RuntimeError('not yet')\n")
	m2, _ := newManager(t, broken, Options{RetryAfter: time.Hour})
	if res := fire(t, m2, "pre_llm_call", `{}`); res[0].Status != dispatch.StatusError {
		t.Fatalf("first: %s", names(res))
	}
	os.WriteFile(filepath.Join(dir, "__init__.py"), []byte("def register(ctx):\n    ctx.register_hook('pre_llm_call', lambda **k: 'ok')\n"), 0o644)
	if res := fire(t, m2, "pre_llm_call", `{}`); res[0].Status != dispatch.StatusError || !strings.Contains(res[0].Warnings[0].String(), "not yet") {
		t.Fatalf("within RetryAfter the failure should stand: %s %q", names(res), res[0].Warnings)
	}
}

func TestTheGoExamplePlugin(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the example")
	}
	home := t.TempDir()
	dir := writePlugin(t, home, "go-guard", map[string]string{})
	example, err := filepath.Abs("../../examples/plugins/go-guard")
	if err != nil {
		t.Fatal(err)
	}
	manifest, err := os.ReadFile(filepath.Join(example, "plugin.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "plugin.yaml"), manifest, 0o644)
	build := exec.Command("go", "build", "-o", filepath.Join(dir, "go-guard"), ".")
	build.Dir = example
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	m, rec := newManager(t, home, Options{})
	res := fire(t, m, "pre_tool_call", `{"tool_name":"terminal","args":{"command":"sudo rm -rf /"}}`)
	if len(res) != 1 || res[0].Answer.Kind != protocol.Block || res[0].Answer.Message != `go-guard: "rm -rf" is not allowed here` {
		t.Fatalf("hooks: %s %+v", names(res), res)
	}
	if res := fire(t, m, "pre_tool_call", `{"tool_name":"terminal","args":{"command":"ls"}}`); res[0].Answer.Kind != protocol.None {
		t.Errorf("ls: %+v", res[0].Answer)
	}
	s := m.Sections(context.Background(), nil)
	if len(s.Accepted) != 1 || s.Accepted[0].ID != "go-guard.rules" || !strings.Contains(s.Text, "blocked by the go-guard plugin") {
		t.Errorf("sections: %+v, warnings %s", s, rec.all())
	}
}
