package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/noora-hooks/noora-hooks/client"
	"github.com/noora-hooks/noora-hooks/internal/config"
	"github.com/noora-hooks/noora-hooks/internal/engine"
	"github.com/noora-hooks/noora-hooks/internal/server"
)

// SocketName is the file name of serve's default socket in the home directory.
const SocketName = "noora-hooks.sock"

// ServeCmd is `noora-hooks serve` (SPEC §12).
type ServeCmd struct {
	Listen      string        `help:"Where to answer: unix:PATH (default: unix:<home>/noora-hooks.sock), or 127.0.0.1:PORT, which needs --token-file." placeholder:"ADDR"`
	TokenFile   string        `help:"File holding the bearer token every request must carry as \"Authorization: Bearer <token>\"; required on TCP (default: $NOORA_HOOKS_TOKEN_FILE)." placeholder:"FILE" type:"path"`
	AllowRemote bool          `help:"Allow a TCP address that is not loopback: other machines holding the token could then fire your hooks."`
	MaxEvents   int           `help:"How many events run at once; more wait their turn." default:"64"`
	CheckEvery  time.Duration `help:"How often to look at the config, the allowlist and callers' working directories for changes; 0 looks before every event." default:"10ms"`
	StreamDrain time.Duration `help:"At shutdown, how long the queues of streaming events (on_stream_*, on_interim_message) get to drain before what is left is dropped, and counted in the log." default:"5s"`
}

// Run serves until SIGTERM or SIGINT: the first finishes the events in
// flight, a second cancels their hooks.
func (c *ServeCmd) Run(g *Globals, env *Env) error {
	if c.MaxEvents < 1 {
		return usageError("--max-events must be at least 1")
	}
	if c.CheckEvery < 0 {
		return usageError("--check-every must not be negative")
	}
	logEnv, logf := serveLog(env)
	paths, err := config.Resolve(g.Home, g.Config, env.Getenv)
	if err != nil {
		return err
	}
	addr, token, err := c.address(paths, env)
	if err != nil {
		return err
	}
	serving := &engine.Serving{Logf: logf}
	srv, err := c.server(paths, token, func() (server.Backend, error) { return serving.Load(engineOptions(g, logEnv)) }, logf)
	if err != nil {
		return err
	}
	l, err := server.Listen(addr, c.AllowRemote)
	if err != nil {
		return err
	}
	defer l.Close()
	err = serveUntilSignalled(srv, l, logEnv, logf)
	serving.Close(c.StreamDrain)
	logf("stopped after %d events", srv.Served())
	return err
}

// serveLog is serve's environment for its log: lines come from many requests
// at once, so one writer takes one line at a time; hooks get serve's
// environment, read once.
func serveLog(env *Env) (*Env, func(string, ...any)) {
	logEnv := *env
	logEnv.Stderr = &lockedWriter{w: env.Stderr}
	environ := env.Environ()
	logEnv.Environ = func() []string { return environ }
	return &logEnv, func(format string, args ...any) {
		fmt.Fprintf(logEnv.Stderr, "noora-hooks: "+format+"\n", args...)
	}
}

// server is the HTTP server of paths' home, loading backends with load.
func (c *ServeCmd) server(paths config.Paths, token string, load func() (server.Backend, error), logf func(string, ...any)) (*server.Server, error) {
	cwd, err := Cwd()
	if err != nil {
		return nil, err
	}
	configPath, _ := filepath.Abs(paths.Config)
	home, _ := filepath.Abs(paths.Home)
	return server.New(server.Options{
		Load:       load,
		Watch:      []string{paths.Config, paths.Allowlist()},
		CheckEvery: c.CheckEvery,
		Config:     configPath,
		Home:       home,
		Token:      token,
		Cwd:        cwd,
		MaxPayload: MaxPayload,
		MaxEvents:  c.MaxEvents,
		Logf:       logf,
	})
}

// serveUntilSignalled serves l until SIGTERM or SIGINT: the first finishes
// the events in flight, a second cancels their hooks.
func serveUntilSignalled(srv *server.Server, l *server.Listener, logEnv *Env, logf func(string, ...any)) error {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	logf("serving on %s (config %s)", l.Address, srv.Config())
	if l.Address.Network == "tcp" && !server.IsLoopback(l.Address) {
		logEnv.Warnf("serving on %s, which other machines may reach: anyone holding the token can run your hooks", l.Address)
	}
	select {
	case err := <-served:
		return fmt.Errorf("serve on %s: %w", l.Address, err)
	case sig := <-sigs:
		logf("%v: finishing the events in flight; send it again to cancel their hooks", sig)
	}
	return shutdown(srv, l, sigs, logf)
}

// address is where serve listens and the bearer token it requires: a TCP
// address needs a token from a file only its owner can read (SPEC §12).
func (c *ServeCmd) address(paths config.Paths, env *Env) (client.Addr, string, error) {
	listen := c.Listen
	if listen == "" {
		listen = "unix:" + filepath.Join(paths.Home, SocketName)
	}
	addr, err := client.ParseAddr(listen)
	if err != nil {
		return addr, "", usageError("--listen: %v", err)
	}
	tokenFile := c.TokenFile
	if tokenFile == "" {
		tokenFile = env.Getenv("NOORA_HOOKS_TOKEN_FILE")
	}
	token := ""
	if tokenFile != "" {
		if token, err = client.ReadToken(tokenFile); err != nil {
			return addr, "", err
		}
	}
	if addr.Network != "tcp" {
		return addr, token, nil
	}
	if token == "" {
		return addr, "", usageError("serving on %s needs a bearer token: put one in a file only you can read and pass --token-file FILE (or set NOORA_HOOKS_TOKEN_FILE)", addr)
	}
	if p := config.CheckToken(tokenFile, token); p != nil {
		return addr, "", &exitError{code: 1, err: p}
	}
	return addr, token, nil
}

// shutdown stops serving after the first signal: new callers find no socket
// and fire in-process, those already in the accept queue are still taken in,
// and the events in flight finish, unless a second signal cancels their hooks.
func shutdown(srv *server.Server, l *server.Listener, sigs <-chan os.Signal, logf func(string, ...any)) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case sig := <-sigs:
			logf("%v again: cancelling the running hooks", sig)
			cancel()
		case <-ctx.Done():
		}
	}()
	l.Unlink()
	l.AwaitBacklog(acceptQueueGrace)
	return srv.Shutdown(ctx)
}

// acceptQueueGrace bounds how long serve waits, after it unlinked its socket
// on a signal, for Serve to accept the connections the kernel already queued
// (it waits for the backlog to be empty, which takes microseconds).
const acceptQueueGrace = 2 * time.Second

// lockedWriter writes one Write at a time.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// defaultServer is where exec --server looks: $NOORA_HOOKS_SERVER when it
// names an address, else the default socket in home.
func defaultServer(paths config.Paths, getenv func(string) string) (client.Addr, error) {
	v := getenv("NOORA_HOOKS_SERVER")
	if v == "" || config.Truthy(v) {
		return client.Addr{Network: "unix", Address: filepath.Join(paths.Home, SocketName)}, nil
	}
	return client.ParseAddr(v)
}
