package cli

import (
	"context"
	"errors"
	"path/filepath"
	"strings"

	"github.com/noora-hooks/noora-hooks/client"
	"github.com/noora-hooks/noora-hooks/internal/config"
	"github.com/noora-hooks/noora-hooks/protocol"
)

// fireViaServer fires the event through a running serve when exec is asked to
// (--server, or NOORA_HOOKS_SERVER), and prints what serve answered: the same
// bytes on stdout and the same warnings on stderr as firing in-process. It
// returns done=false when the event must be fired in-process instead: no
// server was asked for, none answers, or it refused (another config or home,
// no token). Only an explicit --server warns when it falls back; a
// NOORA_HOOKS_SERVER that is not an address always does.
func (c *ExecCmd) fireViaServer(ctx context.Context, g *Globals, env *Env, event protocol.Event, kw protocol.Kwargs, cwd string) (done bool, err error) {
	setting := env.Getenv("NOORA_HOOKS_SERVER")
	if !c.Server && (setting == "" || falsy(setting)) {
		return false, nil
	}
	if config.Truthy(env.Getenv("NOORA_SAFE_MODE")) {
		return false, nil // the escape hatch needs no server: nothing runs
	}
	paths, err := config.Resolve(g.Home, g.Config, env.Getenv)
	if err != nil {
		return false, nil // the in-process path reports it
	}
	addr, err := defaultServer(paths, env.Getenv)
	if err != nil {
		env.Warnf("NOORA_HOOKS_SERVER: %v; firing in-process", err)
		return false, nil
	}
	token := ""
	if file := env.Getenv("NOORA_HOOKS_TOKEN_FILE"); file != "" {
		if token, err = client.ReadToken(file); err != nil {
			env.Warnf("%v; firing in-process", err)
			return false, nil
		}
	}
	cl := client.New(addr, token)
	defer cl.Close()
	configPath, _ := filepath.Abs(paths.Config)
	home, _ := filepath.Abs(paths.Home)
	body, _ := kw.MarshalJSON()
	wait := serverDeadline(paths, event)
	fireCtx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	answer, err := cl.Fire(fireCtx, event.Name, body, client.FireOptions{
		Cwd:         cwd,
		Trace:       c.Trace,
		Config:      configPath,
		Home:        home,
		AcceptHooks: g.AcceptHooks || config.Truthy(env.Getenv("NOORA_ACCEPT_HOOKS")),
	})
	if err != nil && ctx.Err() != nil {
		return false, nil // interrupted: the caller answers for it
	}
	if err != nil && fireCtx.Err() != nil {
		// A server that takes longer than its hooks may is as good as
		// missing, but may have run some: say so whatever asked for it.
		env.Warnf("%s did not answer %s within %v; firing in-process (hooks that serve had already started may run twice)", addr, event.Name, wait)
		return false, nil
	}
	if err != nil {
		// Only an explicit --server is told: a host that set
		// NOORA_HOOKS_SERVER for every exec wants its answers, not noise.
		if c.Server {
			var refused *client.StatusError
			switch {
			case errors.Is(err, client.ErrUnavailable), errors.As(err, &refused):
				env.Warnf("%v; firing in-process", err)
			default:
				// The exchange broke after the request went out: serve may
				// have run some hooks. Running them again beats losing a block.
				env.Warnf("%v; firing in-process (hooks that serve had already started may run twice)", err)
			}
		}
		return false, nil
	}
	for _, w := range answer.Warnings {
		env.Warnf("%s", w)
	}
	_, err = env.Stdout.Write(answer.Body)
	return true, err
}

// falsy reports the words that turn a switch off (the opposite of config.Truthy).
func falsy(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "0", "false", "no", "off":
		return true
	}
	return false
}
