// Package cli is the noora-hooks command line: one file per command, each a
// struct with a Run method whose dependencies kong binds. It parses flags,
// loads what a command needs and prints; the work is done by the packages
// below it. It must never print a warning to stdout: stdout carries results.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/noora-hooks/noora-hooks/internal/runner"

	"github.com/alecthomas/kong"
)

// Version is the program version, set at build time with -ldflags.
var Version = "0.1.0-dev"

// Globals are the flags every command accepts, before or after its name.
type Globals struct {
	Home        string `help:"Noora home directory (default: $NOORA_HOME, else ~/.noora)." placeholder:"DIR" type:"path"`
	Config      string `help:"Config file (default: <home>/config.yaml)." placeholder:"FILE" type:"path"`
	AcceptHooks bool   `help:"Approve without asking, and record, each shell hook that fires (exec, serve) or is pending (approve)."`
}

// ExecCommand is `exec`, the command hosts run for every event. It is its own
// struct so that an `exec` command line is parsed by a tree of exec alone
// (execCLI): kong builds the model of every command it is given, and exec
// should pay only for its own (docs/performance.md).
type ExecCommand struct {
	Exec ExecCmd `cmd:"" help:"Fire an event: read its kwargs (a JSON object) on stdin, run every hook, print the combined answer."`
}

// execCLI is the command tree when the first argument is exec.
type execCLI struct {
	Globals
	ExecCommand
}

// CLI is the command tree.
type CLI struct {
	Globals

	ExecCommand
	List     ListCmd     `cmd:"" help:"Show every configured hook: shell hooks with their approval and drift, then the other kinds."`
	Test     TestCmd     `cmd:"" help:"Fire the shell hooks of an event on a synthetic payload, approved or not, and show what each did."`
	Approve  ApproveCmd  `cmd:"" help:"Approve the shell hooks that are not approved yet, asking at the terminal for each."`
	Revoke   RevokeCmd   `cmd:"" help:"Remove every approval of a command, whatever its event."`
	Doctor   DoctorCmd   `cmd:"" help:"Check every shell hook: program, approval, drift, and a trial run; exit 1 on any issue."`
	Plugins  PluginsCmd  `cmd:"" help:"Plugins: list them, render their system prompt sections."`
	Gateway  GatewayCmd  `cmd:"" help:"Gateway hooks: emit an event to them, list them."`
	Outbound OutboundCmd `cmd:"" help:"Outbound webhooks: deliver the spool now (drain), show it (status), or send a test event (test)."`
	Import   ImportCmd   `cmd:"" help:"Print the hooks of a Claude Code settings.json or a Cursor hooks.json as noora-hooks config (or merge them in with --write)."`
	Serve    ServeCmd    `cmd:"" help:"Answer events over HTTP on a unix socket (or loopback TCP), with the configuration kept warm and reloaded when it changes."`

	Completion CompletionCmd `cmd:"" help:"Print the shell completion script for bash, zsh or fish."`
	Version    VersionCmd    `cmd:"" help:"Print the version."`
}

// Env is the process environment a command runs in; tests give their own.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	Environ        func() []string
	Now            func() time.Time
	// Warn, when set, receives each warning instead of stderr: doctor
	// reports them as issues.
	Warn func(msg string)
	// reportUnsafe: files refused for their permissions are reported as
	// warnings rather than stopping the command (doctor).
	reportUnsafe bool
}

// Warnf prints a warning on stderr.
func (e *Env) Warnf(format string, args ...any) {
	if e.Warn != nil {
		e.Warn(fmt.Sprintf(format, args...))
		return
	}
	fmt.Fprintf(e.Stderr, "noora-hooks: warning: "+format+"\n", args...)
}

// exitError carries an exit code (SPEC §6) to Main.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }
func (e *exitError) ExitCode() int { return e.code }

// usageError is bad usage: exit 2.
func usageError(format string, args ...any) error {
	return &exitError{code: 2, err: fmt.Errorf(format, args...)}
}

// errReported is returned by a command that already printed why it failed
// (a report with issues, say): Main exits 1 without printing it again.
var errReported = errors.New("reported")

type kongExit int

// Main runs the command line and returns the exit code.
func Main(args []string, env *Env) (code int) {
	var root CLI
	var tree any = &root
	globals := &root.Globals
	if len(args) > 0 && args[0] == "exec" {
		var exec execCLI
		tree, globals = &exec, &exec.Globals
	}
	// No arguments is bad usage, unless a shell asks for completions (it
	// runs us without arguments, COMP_LINE set).
	noArgs := len(args) == 0 && env.Getenv("COMP_LINE") == ""
	// stderr is read by a human: escape what a terminal would act on.
	human := *env
	human.Stderr = printableWriter{env.Stderr}
	env = &human
	parser, err := kong.New(tree,
		kong.Name("noora-hooks"),
		kong.Description("Run the Noora agent's hooks out of process: shell hooks, plugins, gateway hooks and outbound webhooks, through one hardened runner."),
		kong.Writers(env.Stdout, env.Stderr),
		kong.Exit(func(c int) { panic(kongExit(c)) }),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
		kong.Vars{"version": Version},
		kong.Bind(env),
		kong.NamedMapper("path", pathMapper(env.Getenv)),
	)
	if err != nil {
		fmt.Fprintf(env.Stderr, "noora-hooks: error: %v\n", err)
		return 1
	}
	defer func() {
		if r := recover(); r != nil {
			c, ok := r.(kongExit)
			if !ok {
				panic(r)
			}
			code = int(c)
			if noArgs {
				code = 2
			}
		}
	}()
	// Every child of this program is started by runner: escaped ones can
	// be adopted and killed (runner/reap.go).
	runner.AdoptOrphans()
	completeIfAsked(parser, env)
	if noArgs {
		// No command is bad usage (SPEC §6): the help goes to stderr, exit 2.
		parser.Stdout = env.Stderr
		args = []string{"--help"}
	}
	ctx, err := parser.Parse(args)
	if err != nil {
		fmt.Fprintf(env.Stderr, "noora-hooks: error: %v\n", err)
		if pe := (*kong.ParseError)(nil); errors.As(err, &pe) && pe.Context != nil {
			fmt.Fprintf(env.Stderr, "Run \"noora-hooks %s --help\" for usage.\n", commandPath(pe.Context))
		}
		return 2
	}
	if err := ctx.Run(globals); err != nil {
		var ec interface{ ExitCode() int }
		code := 1
		if errors.As(err, &ec) {
			code = ec.ExitCode()
		}
		if !errors.Is(err, errReported) {
			fmt.Fprintf(env.Stderr, "noora-hooks: error: %v\n", err)
		}
		return code
	}
	return 0
}

func commandPath(ctx *kong.Context) string {
	var parts []string
	for _, p := range ctx.Path {
		if p.Command != nil {
			parts = append(parts, p.Command.Name)
		}
	}
	return strings.Join(parts, " ")
}

// OSEnv is the real process environment.
func OSEnv() *Env {
	return &Env{
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		Getenv: os.Getenv, Environ: os.Environ, Now: time.Now,
	}
}

// VersionCmd prints the version.
type VersionCmd struct{}

// Run prints the version.
func (VersionCmd) Run(env *Env) error {
	fmt.Fprintf(env.Stdout, "noora-hooks %s\n", Version)
	return nil
}

// signalContext is cancelled by SIGINT or SIGTERM, so that a command's hooks
// are stopped (their process groups killed) when the command is.
func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}
