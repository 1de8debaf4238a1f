package cli

import (
	"os"
	"path/filepath"
	"time"

	"github.com/noora-hooks/noora-hooks/internal/config"
	"github.com/noora-hooks/noora-hooks/protocol"
)

// serverMargin is what a serve may take beyond its hooks' timeouts before
// exec stops waiting: the runner's kill grace (about 2 s), a reload of the
// config, and a busy machine.
const serverMargin = 5 * time.Second

// serverDeadline bounds how long exec waits for serve to answer event: the
// longest its hooks may run, by the config exec would load, plus
// serverMargin. Hooks run hooks_concurrency at a time, so each wave of them
// counts once; plugins count with their start and callback timeouts when
// there are any. A config that cannot be read gets the largest timeout a
// shell hook may have. A server that has not answered by then is treated as
// missing: exec fires in-process (SPEC §12).
func serverDeadline(paths config.Paths, event protocol.Event) time.Duration {
	cfg, err := config.Load(paths.Config)
	if err != nil {
		return config.MaxTimeout + serverMargin
	}
	var longest time.Duration
	n := 0
	for _, h := range cfg.ShellHooks {
		if h.Event != event.Name {
			continue
		}
		n++
		longest = max(longest, h.Timeout)
	}
	waves := 1
	if c := cfg.Concurrency; c > 0 && n > c {
		waves = (n + c - 1) / c
	}
	budget := time.Duration(waves) * longest
	if hasPlugins(paths.Home) {
		callback := cfg.Plugins.CallbackTimeout()
		if callback == 0 { // no limit configured: the largest a limit may be
			callback = config.MaxCallbackTimeout
		}
		budget += cfg.Plugins.StartTimeout() + callback
	}
	return budget + serverMargin
}

// hasPlugins reports whether home has a plugins directory with anything in it.
func hasPlugins(home string) bool {
	entries, err := os.ReadDir(filepath.Join(home, "plugins"))
	return err == nil && len(entries) > 0
}
