package cli

import (
	"fmt"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/noora-hooks/noora-hooks/internal/engine"
	"github.com/noora-hooks/noora-hooks/internal/plugins"
	"github.com/noora-hooks/noora-hooks/protocol"
)

// PluginsCmd is `noora-hooks plugins`.
type PluginsCmd struct {
	List     PluginsListCmd     `cmd:"" help:"List the plugins under <home>/plugins: name, version, hooks, system prompt sections and status. Each plugin is started to learn what it registers."`
	Sections PluginsSectionsCmd `cmd:"" help:"Render the plugins' system prompt sections for a new session, as the Noora contract caps and orders them."`
}

// PluginsListCmd is `noora-hooks plugins list`.
type PluginsListCmd struct {
	JSON bool `name:"json" help:"Print a JSON array of {name, version, description, kind, dir, command, hooks: [{event, callback}], sections, status, error, notes}."`
}

// Run lists the plugins.
func (c *PluginsListCmd) Run(g *Globals, env *Env) error {
	eng, err := loadEngine(g, env)
	if err != nil {
		return err
	}
	infos := eng.PluginInfos()
	if c.JSON {
		if infos == nil {
			infos = []plugins.Info{}
		}
		return writeJSON(env.Stdout, infos)
	}
	if len(infos) == 0 {
		fmt.Fprintf(env.Stdout, "no plugins in %s\n", plugins.Dir(eng.Paths.Home))
		return nil
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tVERSION\tKIND\tSTATUS\tHOOKS\tSECTIONS")
	for _, in := range infos {
		var hooks []string
		for _, h := range in.Hooks {
			hooks = append(hooks, h.Event)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", in.Name, dash(in.Version), dash(in.Kind), in.Status,
			dash(strings.Join(hooks, ",")), dash(strings.Join(in.Sections, ",")))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, in := range infos {
		if in.Error != "" {
			fmt.Fprintf(env.Stdout, "%s: %s\n", in.Name, in.Error)
		}
		for _, n := range in.Notes {
			fmt.Fprintf(env.Stdout, "%s: %s\n", in.Name, n)
		}
	}
	return nil
}

// PluginInfos is what `plugins list` shows, for `list` to reuse: every plugin
// directory, started to learn its hooks and sections, or marked disabled in
// safe mode.
func PluginInfos(eng *engine.Engine) []plugins.Info {
	if eng.SafeMode {
		return plugins.ListDisabled(eng.Paths.Home)
	}
	return plugins.List(eng.PluginOptions())
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// MaxSessionInfo bounds the --session-info file.
const MaxSessionInfo = 1 << 20

// sessionInfoKeys are what a section callable may read (the Noora contract).
var sessionInfoKeys = []string{"session_id", "model", "provider", "platform", "profile_name", "cwd"}

// PluginsSectionsCmd is `noora-hooks plugins sections`.
type PluginsSectionsCmd struct {
	SessionInfo string `help:"A JSON object describing the new session (session_id, model, provider, platform, profile_name, cwd), handed read-only to section callables; \"-\" reads stdin. Missing keys are empty strings, cwd the working directory." placeholder:"FILE"`
	JSON        bool   `name:"json" help:"Print {text, chars, sections: [{id, plugin, position, chars}], skipped: [{id, plugin, reason}]} instead of the text."`
}

// Run renders the sections.
func (c *PluginsSectionsCmd) Run(g *Globals, env *Env) error {
	info, err := c.sessionInfo(env)
	if err != nil {
		return err
	}
	eng, err := loadEngine(g, env)
	if err != nil {
		return err
	}
	defer eng.Close()
	var out plugins.Sections
	if m := eng.Plugins(); m != nil {
		ctx, stop := signalContext()
		defer stop()
		out = m.Sections(ctx, info)
	}
	if !c.JSON {
		if out.Text == "" {
			return nil
		}
		_, err := fmt.Fprintln(env.Stdout, out.Text)
		return err
	}
	accepted := []protocol.Object{}
	for _, s := range out.Accepted {
		accepted = append(accepted, protocol.Object{
			{Key: "id", Value: protocol.String(s.ID)},
			{Key: "plugin", Value: protocol.String(s.Plugin)},
			{Key: "position", Value: protocol.String(s.Position)},
			{Key: "chars", Value: protocol.Raw(s.Chars)},
		})
	}
	skipped := []protocol.Object{}
	for _, s := range out.Skipped {
		skipped = append(skipped, protocol.Object{
			{Key: "id", Value: protocol.String(s.ID)},
			{Key: "plugin", Value: protocol.String(s.Plugin)},
			{Key: "reason", Value: protocol.String(s.Reason)},
		})
	}
	return writeJSON(env.Stdout, protocol.Object{
		{Key: "text", Value: protocol.String(out.Text)},
		{Key: "chars", Value: protocol.Raw(len([]rune(out.Text)))},
		{Key: "sections", Value: protocol.Raw(accepted)},
		{Key: "skipped", Value: protocol.Raw(skipped)},
	})
}

// sessionInfo reads --session-info and fills in the keys the contract
// promises a section callable.
func (c *PluginsSectionsCmd) sessionInfo(env *Env) (protocol.Object, error) {
	info := protocol.Object{}
	if c.SessionInfo != "" {
		data, name, err := readInput("session info", c.SessionInfo, env.Stdin, MaxSessionInfo)
		if err != nil {
			return nil, err
		}
		if info, err = protocol.ParseObject(data); err != nil {
			return nil, fmt.Errorf("session info from %s: %v; it must be a JSON object such as {\"session_id\": \"s1\", \"model\": \"m\", \"platform\": \"cli\"}", name, err)
		}
	}
	for _, k := range sessionInfoKeys {
		if _, ok := info.Get(k); ok {
			continue
		}
		v := ""
		if k == "cwd" {
			v, _ = os.Getwd()
		}
		info = info.With(k, protocol.String(v))
	}
	return info, nil
}
