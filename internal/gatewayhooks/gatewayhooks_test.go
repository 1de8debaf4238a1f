package gatewayhooks

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/noora-hooks/noora-hooks/protocol"
)

func TestParseManifest(t *testing.T) {
	tests := []struct {
		name    string
		yaml    string
		want    string // name|events|argv|timeout
		notes   string
		wantErr string
	}{
		{"The guide's manifest is read", "name: my-hook\ndescription: Log all\nevents:\n  - agent:start\n  - agent:end\n", "my-hook|agent:start,agent:end||60s", "", ""},
		{"Wildcards are kept", "events: [command:*, agent:step]\n", "dir|command:*,agent:step||60s", "", ""},
		{"A command handler is split like a shell", "events: [x:y]\ncommand: ./notify --to 'ops team'\n", "dir|x:y|/h/dir/notify --to ops team|60s", "", ""},
		{"A timeout is read", "events: [a:b]\ntimeout: 5\n", "dir|a:b||5s", "", ""},
		{"A timeout over the maximum is clamped", "events: [a:b]\ntimeout: 9999\n", "dir|a:b||5m0s", "clamped to 300", ""},
		{"A bad timeout is the default", "events: [a:b]\ntimeout: soon\n", "dir|a:b||1m0s", "not a whole number", ""},
		{"Duplicate events count once", "events: [a:b, a:b]\n", "dir|a:b||60s", "", ""},
		{"A bad event is dropped with a note", "events: ['agent:st*', 'a b', a:b]\n", "dir|a:b||60s", `event "agent:st*" has a wildcard other than`, ""},
		{"No events is an error", "name: x\n", "", "", "has no events"},
		{"Only bad events is an error", "events: ['*']\n", "", "", "has no valid events"},
		{"Events must be a list", "events: agent:start\n", "", "", "events must be a list"},
		{"A YAML error is an error", "events: [\n", "", "", "HOOK.yaml:"},
		{"A scalar is not a manifest", "hello\n", "", "", "expected a mapping"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, notes, err := ParseManifest("/h/dir", []byte(tt.yaml))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := h.Name + "|" + strings.Join(h.Events, ",") + "|" + strings.Join(h.Command, " ") + "|" + h.Timeout.String()
			want := strings.Replace(tt.want, "60s", "1m0s", 1)
			if got != want {
				t.Errorf("got %q, want %q", got, want)
			}
			if n := strings.Join(notes, "\n"); tt.notes == "" && n != "" || !strings.Contains(n, tt.notes) {
				t.Errorf("notes %q, want %q", n, tt.notes)
			}
		})
	}
}

func TestMatchingTakesExactHandlersFirstThenWildcards(t *testing.T) {
	hs := []*Handler{
		{Name: "a-wild", Events: []string{"command:*"}},
		{Name: "b-exact", Events: []string{"command:model"}},
		{Name: "c-both", Events: []string{"command:*", "command:model"}},
		{Name: "d-other", Events: []string{"agent:start"}},
		{Name: "e-wild", Events: []string{"command:*"}},
	}
	tests := []struct{ event, want string }{
		{"command:model", "b-exact c-both a-wild e-wild"},
		{"command:reset", "a-wild c-both e-wild"},
		{"agent:start", "d-other"},
		{"agent:end", ""},
		{"command", ""},
	}
	for _, tt := range tests {
		t.Run("The event "+tt.event+" fires "+tt.want, func(t *testing.T) {
			var got []string
			for _, h := range Matching(hs, tt.event) {
				got = append(got, h.Name)
			}
			if strings.Join(got, " ") != tt.want {
				t.Errorf("got %q", got)
			}
		})
	}
}

func writeHook(t *testing.T, home, name string, files map[string]string) {
	t.Helper()
	dir := filepath.Join(home, "hooks", name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for f, c := range files {
		mode := os.FileMode(0o644)
		if strings.HasSuffix(f, ".sh") {
			mode = 0o755
		}
		if err := os.WriteFile(filepath.Join(dir, f), []byte(c), mode); err != nil {
			t.Fatal(err)
		}
	}
}

func TestEmitRunsEveryHandlerInOrderAndGathersTheirResults(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	home := t.TempDir()
	writeHook(t, home, "a-sync", map[string]string{
		"HOOK.yaml":  "events: [agent:start]\n",
		"handler.py": "def handle(event_type, context):\n    return {'sync': event_type, 'user': context['user_id']}\n",
	})
	writeHook(t, home, "b-async", map[string]string{
		"HOOK.yaml":  "events: ['agent:*']\n",
		"handler.py": "import asyncio\nasync def handle(event_type, context):\n    await asyncio.sleep(0.01)\n    return 'async ' + event_type\n",
	})
	writeHook(t, home, "c-raises", map[string]string{
		"HOOK.yaml":  "events: [agent:start]\n",
		"handler.py": "def handle(event_type, context):\n    raise RuntimeError('down')\n",
	})
	writeHook(t, home, "d-none", map[string]string{
		"HOOK.yaml":  "events: [agent:start]\n",
		"handler.py": "def handle(event_type, context):\n    print('just logging')\n",
	})
	writeHook(t, home, "e-command", map[string]string{
		"HOOK.yaml": "events: [agent:start]\ncommand: /bin/sh ./h.sh\n",
		"h.sh":      "read -r line; printf '{\"got\": %s}' \"$line\"\n",
	})
	writeHook(t, home, "f-fails", map[string]string{
		"HOOK.yaml": "events: [agent:start]\ncommand: /bin/sh -c 'echo oops >&2; echo 1; exit 3'\n",
	})
	writeHook(t, home, "g-no-handle", map[string]string{
		"HOOK.yaml":  "events: [agent:start]\n",
		"handler.py": "x = 1\n",
	})
	handlers, problems := Discover(home)
	if len(problems) != 0 {
		t.Fatalf("problems: %v", problems)
	}
	var logs []string
	em := &Emitter{
		Handlers: handlers, Home: home, Cwd: t.TempDir(),
		Env: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")},
		Log: func(hook, line string) { logs = append(logs, hook+": "+line) },
		// A Python start takes seconds on a loaded machine; this test is
		// about what handlers answer, not how fast they start.
		StartTimeout: 2 * time.Minute,
	}
	start := time.Now()
	results := em.Emit(context.Background(), "agent:start", protocol.Object{{Key: "user_id", Value: protocol.String("u1")}})
	if took := time.Since(start); took > 10*time.Minute { // seven Pythons, one after the other, on a busy machine
		t.Fatalf("emit took %v", took)
	}
	var order []string
	errs := map[string]string{}
	for _, r := range results {
		order = append(order, r.Handler.Name)
		if r.Err != nil {
			errs[r.Handler.Name] = r.Err.Error()
		}
	}
	if got := strings.Join(order, " "); got != "a-sync c-raises d-none e-command f-fails g-no-handle b-async" {
		t.Errorf("order %q", got)
	}
	var values []string
	for _, v := range Values(results) {
		values = append(values, string(v))
	}
	want := `{"sync":"agent:start","user":"u1"}|{"got":{"event_type":"agent:start","context":{"user_id":"u1"}}}|"async agent:start"`
	if got := strings.Join(values, "|"); got != want {
		t.Errorf("values:\n%s\nwant:\n%s", got, want)
	}
	for name, want := range map[string]string{
		"c-raises":    "handle() raised RuntimeError: down (at handler.py:2 in handle)",
		"f-fails":     "exited with status 3: oops; its output was ignored",
		"g-no-handle": "handler.py cannot run: handler.py defines no handle(event_type, context) function",
	} {
		if !strings.Contains(errs[name], want) {
			t.Errorf("%s: error %q, want %q", name, errs[name], want)
		}
	}
	if len(errs) != 3 {
		t.Errorf("errors: %v", errs)
	}
	if !strings.Contains(strings.Join(logs, "\n"), "d-none: just logging") {
		t.Errorf("logs: %q", logs)
	}
}

func FuzzParseManifest(f *testing.F) {
	for _, s := range []string{
		"name: x\nevents: [agent:start, 'command:*']\n", "events: [a:b]\ncommand: ./h 'x y'\ntimeout: 5\n",
		"events: []\n", "events: [[1]]\n", "events: {a: b}\n", "timeout: -1\nevents: [a:b]\n", "]",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		h, _, err := ParseManifest("/hooks/x", data)
		if err != nil {
			return
		}
		if len(h.Events) == 0 {
			t.Fatal("accepted a hook without events")
		}
		for _, e := range h.Events {
			if badEvent(e) != "" {
				t.Fatalf("accepted event %q", e)
			}
		}
		if h.Timeout < time.Second || h.Timeout > MaxTimeout {
			t.Fatalf("timeout %v", h.Timeout)
		}
	})
}
