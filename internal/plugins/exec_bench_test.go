// Benchmarks of plugins through exec, against an equivalent shell hook.
package plugins_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/noora-hooks/noora-hooks/internal/dispatch"

	"github.com/noora-hooks/noora-hooks/cli"
	"github.com/noora-hooks/noora-hooks/internal/plugins"
	"github.com/noora-hooks/noora-hooks/protocol"
)

// The same guard, once as a Python plugin and once as a shell hook that is a
// Python script: the difference is what the plugin machinery costs.
const (
	pluginSrc = `
def guard(tool_name, args, **kwargs):
    if tool_name == "terminal" and "rm -rf" in args.get("command", ""):
        return {"action": "block", "message": "no rm -rf"}

def register(ctx):
    ctx.register_hook("pre_tool_call", guard)
`
	hookSrc = `import json, sys
kw = json.load(sys.stdin)
if kw["tool_name"] == "terminal" and "rm -rf" in (kw["tool_input"] or {}).get("command", ""):
    print(json.dumps({"action": "block", "message": "no rm -rf"}))
`
	payload = `{"tool_name":"terminal","args":{"command":"rm -rf /"},"task_id":"t1"}`
	want    = `{"event":"pre_tool_call","action":"block","message":"no rm -rf"}` + "\n"
)

func write(b *testing.B, path, content string) {
	b.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		b.Fatal(err)
	}
}

// homes returns a home with the guard as a plugin and one with it as a shell hook.
func homes(b *testing.B) (pluginHome, shellHome string) {
	if _, err := exec.LookPath("python3"); err != nil {
		b.Skip("python3 is not installed")
	}
	pluginHome, shellHome = b.TempDir(), b.TempDir()
	write(b, filepath.Join(pluginHome, "plugins", "guard", "plugin.yaml"), "name: guard\n")
	write(b, filepath.Join(pluginHome, "plugins", "guard", "__init__.py"), pluginSrc)
	write(b, filepath.Join(shellHome, "guard.py"), hookSrc)
	write(b, filepath.Join(shellHome, "config.yaml"), "hooks:\n  pre_tool_call:\n    - command: python3 "+filepath.Join(shellHome, "guard.py")+"\n")
	return pluginHome, shellHome
}

// execOnce runs `noora-hooks exec pre_tool_call` in process and returns how
// long it took; the answer must be the block.
func execOnce(b *testing.B, home string) time.Duration {
	var stdout bytes.Buffer
	env := &cli.Env{
		Stdin: strings.NewReader(payload), Stdout: &stdout, Stderr: io.Discard,
		Getenv:  func(k string) string { return map[string]string{"NOORA_HOME": home}[k] },
		Environ: func() []string { return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")} },
		Now:     time.Now,
	}
	start := time.Now()
	code := cli.Main([]string{"exec", "pre_tool_call", "--accept-hooks"}, env)
	took := time.Since(start)
	if code != 0 || stdout.String() != want {
		b.Fatalf("exec in %s: exit %d, answer %q", home, code, stdout.String())
	}
	return took
}

// BenchmarkExecPythonPluginVsShellHook fires one pre_tool_call through
// `exec` (in process) with the guard as a Python plugin and, alternately,
// as an equivalent Python shell hook. It reports the time of each and their
// ratio (plugin/shell).
func BenchmarkExecPythonPluginVsShellHook(b *testing.B) {
	pluginHome, shellHome := homes(b)
	execOnce(b, pluginHome) // warm the OS caches for both
	execOnce(b, shellHome)
	var plugin, shell time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		plugin += execOnce(b, pluginHome)
		shell += execOnce(b, shellHome)
	}
	n := float64(b.N)
	b.ReportMetric(float64(plugin.Microseconds())/n/1000, "plugin-ms/exec")
	b.ReportMetric(float64(shell.Microseconds())/n/1000, "shell-ms/exec")
	b.ReportMetric(float64(plugin)/float64(shell), "plugin/shell")
}

// BenchmarkWarmPluginCallback is one callback of a plugin whose process is
// already running, as a long-lived `serve` keeps it: the protocol's round
// trip, without any process start.
func BenchmarkWarmPluginCallback(b *testing.B) {
	pluginHome, _ := homes(b)
	m := plugins.NewManager(plugins.Options{
		Home: pluginHome, Env: []string{"PATH=" + os.Getenv("PATH")},
		CallbackTimeout: 30 * time.Second,
	})
	defer m.Close()
	ev, _ := protocol.Lookup(protocol.PreToolCall)
	kw, _ := protocol.ParseObject([]byte(payload))
	call := dispatch.Call{Event: ev, Kwargs: kw, Cwd: b.TempDir()}
	dispatch.RunAll(context.Background(), call, m.Hooks(context.Background(), call), 1) // starts the process
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		hooks := m.Hooks(context.Background(), call)
		res := dispatch.RunAll(context.Background(), call, hooks, 1)
		if len(res) != 1 || res[0].Answer.Kind != protocol.Block {
			b.Fatalf("results %+v", res)
		}
	}
}
