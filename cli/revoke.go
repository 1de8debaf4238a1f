package cli

import (
	"fmt"
	"path"
	"strings"

	"github.com/google/shlex"

	"github.com/noora-hooks/noora-hooks/internal/config"
	"github.com/noora-hooks/noora-hooks/internal/consent"
)

// RevokeCmd is `noora-hooks revoke <command>`.
type RevokeCmd struct {
	Command string `arg:"" help:"The exact command line of the hook, as in config.yaml (quote it)."`
	JSON    bool   `help:"Print what was revoked as JSON (shape: docs/cli.md)." name:"json"`
}

// Help is the long help of `revoke`.
func (RevokeCmd) Help() string {
	return `The command must be written exactly as in config.yaml, e.g. noora-hooks revoke '~/.noora/agent-hooks/guard.sh --strict'. Every approval of it goes, whatever its event; exec skips the hook until it is approved again. A command that matches nothing is not an error.`
}

// Run removes every allowlist entry of the command, whatever its event (SPEC §5).
func (c *RevokeCmd) Run(g *Globals, env *Env) error {
	paths, err := config.Resolve(g.Home, g.Config, env.Getenv)
	if err != nil {
		return err
	}
	// Only the allowlist is needed: a broken config must not stop a revoke.
	store := consent.Store{Path: paths.Allowlist(), Warn: func(msg string) { env.Warnf("%s", msg) }}
	removed, err := store.RevokeEntries(c.Command)
	if err != nil {
		return err
	}
	if c.JSON {
		rep := revokeReport{Command: c.Command, Allowlist: store.Path, Revoked: len(removed), Events: []string{}}
		for _, a := range removed {
			rep.Events = append(rep.Events, a.Event)
		}
		return writeJSON(env.Stdout, rep)
	}
	if len(removed) == 0 {
		fmt.Fprintf(env.Stdout, "No approval matches the command %q in %s: nothing was revoked.\n", c.Command, store.Path)
		if hint := similarCommands(store, c.Command); hint != "" {
			fmt.Fprintf(env.Stdout, "Approved commands that look alike: %s\n", hint)
		}
		return nil
	}
	events := make([]string, len(removed))
	for i, a := range removed {
		events[i] = a.Event
	}
	fmt.Fprintf(env.Stdout, "Revoked %s of %q (%s); exec skips it until it is approved again.\n",
		plural(len(removed), "approval", "approvals"), c.Command, strings.Join(events, ", "))
	return nil
}

// similarCommands names the approved commands whose script has the same
// file name as the one asked for: the usual slip is a different spelling of the
// same script (~/ against the full path, a missing argument).
func similarCommands(store consent.Store, command string) string {
	want := baseOf(command)
	seen := map[string]bool{}
	var out []string
	for _, a := range store.Load().Approvals {
		if !seen[a.Command] && baseOf(a.Command) == want {
			seen[a.Command] = true
			out = append(out, fmt.Sprintf("%q", a.Command))
		}
	}
	return strings.Join(out, ", ")
}

// baseOf is the last path element of a command's script (SPEC §5).
func baseOf(command string) string {
	return path.Base(consent.Script(command, shlex.Split))
}

// revokeReport is `revoke --json`.
type revokeReport struct {
	Command   string   `json:"command"`
	Allowlist string   `json:"allowlist"`
	Revoked   int      `json:"revoked"`
	Events    []string `json:"events"`
}
