package cli

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/noora-hooks/noora-hooks/internal/config"
	"github.com/noora-hooks/noora-hooks/internal/gatewayhooks"
	"github.com/noora-hooks/noora-hooks/internal/plugins"
	"github.com/noora-hooks/noora-hooks/protocol"
)

// GatewayCmd is `noora-hooks gateway`.
type GatewayCmd struct {
	Emit GatewayEmitCmd `cmd:"" help:"Fire a gateway event (e.g. agent:start, command:model) at the hooks under <home>/hooks: read its context (a JSON object) on stdin, print a JSON array of the handlers' non-null results."`
	List GatewayListCmd `cmd:"" help:"List the gateway hooks under <home>/hooks: name, events, handler and status."`
}

// GatewayEmitCmd is `noora-hooks gateway emit <event>`.
type GatewayEmitCmd struct {
	Event       string `arg:"" help:"The gateway event: gateway:startup, session:start, agent:step, command:<name>, ..."`
	ContextFile string `help:"Read the context from FILE instead of stdin." placeholder:"FILE" type:"path"`
	Background  bool   `help:"Return at once and run the handlers in a detached process; it prints nothing and logs to <home>/logs/gateway.log."`
	Wait        bool   `help:"Wait for the asyncio tasks and threads that handlers leave running after handle() returns (at most gateway_hooks.background_timeout, default 30 s) before returning. Without it they finish in the handlers' own processes, which log to <home>/logs/gateway.log."`
	Detached    bool   `hidden:"" help:"Set by --background on the detached process it starts: print no result, stamp log lines with the time."`
}

// Run fires the event.
func (c *GatewayEmitCmd) Run(g *Globals, env *Env) error {
	event := strings.TrimSpace(c.Event)
	if event == "" || strings.ContainsAny(event, " \t\r\n") {
		return usageError("gateway event %q is not a name such as agent:start or command:model", c.Event)
	}
	if c.Detached {
		env = detachedEnv(env, "gateway emit "+event)
		defer env.Stderr.(*stampWriter).Flush()
	}
	kw, err := readContext(c.ContextFile, env.Stdin)
	if err != nil {
		return err
	}
	paths, err := config.Resolve(g.Home, g.Config, env.Getenv)
	if err != nil {
		return err
	}
	cwd, err := Cwd()
	if err != nil {
		return err
	}
	if config.Truthy(env.Getenv("NOORA_SAFE_MODE")) {
		// Safe mode runs nothing (SPEC §1): no handler, not even detached.
		env.Warnf("%s", safeModeNote)
		if c.Background {
			return nil
		}
		_, err = env.Stdout.Write([]byte("[]\n"))
		return err
	}
	if c.Background {
		stdin, _ := kw.MarshalJSON()
		if err := detachSelf(g, paths, []string{"gateway", "emit", c.Event}, stdin, cwd, "gateway.log", env); err != nil {
			return fmt.Errorf("gateway emit %s --background: %w", c.Event, err)
		}
		return nil
	}
	handlers, problems := gatewayhooks.Discover(paths.Home)
	for _, p := range problems {
		env.Warnf("%s", p)
	}
	ctx, stop := signalContext()
	defer stop()
	em := c.emitter(handlers, paths, cwd, env)
	results := em.Emit(ctx, event, kw)
	for _, r := range results {
		if r.Err != nil {
			env.Warnf("gateway hook %q: %s: %v", r.Handler.Name, event, r.Err)
		}
	}
	// One line, like exec's answer: a result for programs, not a report.
	_, err = env.Stdout.Write(append(protocol.Raw(gatewayhooks.Values(results)), '\n'))
	return err
}

// readContext reads the event's context: a JSON object, from file or stdin.
// Empty input is an empty context.
func readContext(file string, stdin io.Reader) (protocol.Object, error) {
	data, name, err := readInput("context", file, stdin, MaxPayload)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return protocol.Object{}, nil
	}
	obj, err := protocol.ParseObject(data)
	if err != nil {
		return nil, fmt.Errorf("context from %s: %v; it must be one JSON object, e.g. {\"platform\": \"telegram\", \"user_id\": \"u1\"}", name, err)
	}
	return obj, nil
}

// emitter runs handlers as this command line asks: background work waited
// for with --wait (and by the detached run of --background), handler logs on
// stderr.
func (c *GatewayEmitCmd) emitter(handlers []*gatewayhooks.Handler, paths config.Paths, cwd string, env *Env) *gatewayhooks.Emitter {
	background, startTimeout := gatewaySettings(paths, env)
	return &gatewayhooks.Emitter{
		Handlers: handlers, Home: paths.Home, Env: env.Environ(), Cwd: cwd,
		Python:     plugins.Python(env.Getenv),
		ConfigPath: paths.Config, Background: background, StartTimeout: startTimeout,
		WaitBackground: c.Wait || c.Detached, BackgroundLog: filepath.Join(paths.Home, "logs", "gateway.log"),
		Log: func(hook, line string) {
			stderrMu.Lock()
			defer stderrMu.Unlock()
			fmt.Fprintf(env.Stderr, "noora-hooks: gateway hook %s: %s\n", hook, line)
		},
	}
}

// GatewayListCmd is `noora-hooks gateway list`.
type GatewayListCmd struct {
	JSON bool `name:"json" help:"Print a JSON array of {name, description, dir, kind, command, events, timeout, status, error, notes}."`
}

// Run lists the gateway hooks.
func (c *GatewayListCmd) Run(g *Globals, env *Env) error {
	paths, err := config.Resolve(g.Home, g.Config, env.Getenv)
	if err != nil {
		return err
	}
	infos := gatewayhooks.List(paths.Home)
	if c.JSON {
		if infos == nil {
			infos = []gatewayhooks.Info{}
		}
		return writeJSON(env.Stdout, infos)
	}
	if len(infos) == 0 {
		fmt.Fprintf(env.Stdout, "no gateway hooks in %s\n", gatewayhooks.Dir(paths.Home))
		return nil
	}
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tKIND\tSTATUS\tEVENTS\tDESCRIPTION")
	for _, in := range infos {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", in.Name, dash(in.Kind), in.Status, dash(strings.Join(in.Events, ",")), dash(in.Description))
	}
	_ = tw.Flush()
	for _, in := range infos {
		if in.Error != "" {
			fmt.Fprintf(&buf, "%s: %s\n", in.Name, in.Error)
		}
		for _, n := range in.Notes {
			fmt.Fprintf(&buf, "%s: %s\n", in.Name, n)
		}
	}
	_, err = io.Copy(env.Stdout, &buf)
	return err
}
