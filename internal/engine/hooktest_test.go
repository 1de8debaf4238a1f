package engine

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/noora-hooks/noora-hooks/internal/dispatch"
	"github.com/noora-hooks/noora-hooks/internal/journal"
	"github.com/noora-hooks/noora-hooks/protocol"
)

// A hook test runs an unapproved hook, and records nothing: no approval, no
// journal entry, no outbound delivery. Why, on the same home, says the hook
// would not run and runs nothing.
func TestHookTestRunsUnapprovedHooksAndRecordsNothing(t *testing.T) {
	home := t.TempDir()
	marker := filepath.Join(home, "ran")
	script := filepath.Join(home, "hook.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\ncat >/dev/null\ntouch "+marker+"\necho '{\"action\":\"block\",\"message\":\"no\"}'\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := "hooks:\n  pre_tool_call:\n    - command: " + script + "\noutbound_webhooks:\n  - name: ci\n    url: https://ci.example.com/hook\n    events: [pre_tool_call]\n"
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	opts := Options{Home: home, Getenv: func(string) string { return "" }, Environ: os.Environ, Now: time.Now}
	event, _ := protocol.Lookup(protocol.PreToolCall)
	kw := protocol.Kwargs{}.With("tool_name", protocol.String("terminal"))

	why, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	ex := why.Why(Origin{}, event, kw, home)
	if len(ex.Hooks) == 0 || ex.Hooks[0].WouldRun || ex.Hooks[0].Reason != string(dispatch.SkipNotApproved) {
		t.Fatalf("why: hooks = %+v, want the shell hook not approved", ex.Hooks)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("why ran the hook")
	}
	why.Close()

	opts.HookTest = true
	eng, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	rep := eng.Fire(context.Background(), event, kw, home)
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}
	if rep.Combined.Answer == nil || len(rep.Results) != 1 || rep.Results[0].Status != dispatch.StatusOK {
		t.Fatalf("report = %+v, want the hook run and its block", rep)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the hook did not run: %v", err)
	}
	for _, f := range []string{filepath.Join(home, "shell-hooks-allowlist.json"), journal.PathIn(home), filepath.Join(home, "outbound")} {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("a hook test left %s", f)
		}
	}
}
