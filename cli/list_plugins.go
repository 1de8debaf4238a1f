package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/noora-hooks/noora-hooks/internal/engine"
	"github.com/noora-hooks/noora-hooks/internal/gatewayhooks"
	"github.com/noora-hooks/noora-hooks/internal/plugins"
)

// listPlugins is the plugins section of `list`: what `plugins list` shows.
func listPlugins(eng *engine.Engine) (listed, error) {
	infos := eng.PluginInfos()
	if infos == nil {
		infos = []plugins.Info{}
	}
	return listed{Items: infos, Count: len(infos), Text: func(w io.Writer) {
		fmt.Fprintf(w, "Plugins (%d), in %s:\n", len(infos), plugins.Dir(eng.Paths.Home))
		for _, in := range infos {
			fmt.Fprintf(w, "\n  %s\n", in.Name)
			if in.Kind != "" {
				kind := in.Kind
				if in.Command != "" {
					kind += ": " + in.Command
				}
				fmt.Fprintf(w, "    kind:     %s\n", kind)
			}
			if in.Version != "" {
				fmt.Fprintf(w, "    version:  %s\n", in.Version)
			}
			status := in.Status
			if in.Error != "" {
				status += ": " + in.Error
			}
			fmt.Fprintf(w, "    status:   %s\n", status)
			var hooks []string
			for _, h := range in.Hooks {
				hooks = append(hooks, h.Event+" ("+h.Callback+")")
			}
			if len(hooks) > 0 {
				fmt.Fprintf(w, "    hooks:    %s\n", strings.Join(hooks, ", "))
			}
			if len(in.Sections) > 0 {
				fmt.Fprintf(w, "    sections: %s\n", strings.Join(in.Sections, ", "))
			}
		}
	}}, nil
}

// listGatewayHooks is the gateway hooks section of `list`: what `gateway
// list` shows. Safe mode does not affect gateway hooks (SPEC §1 names shell
// hooks, plugins and outbound webhooks only).
func listGatewayHooks(eng *engine.Engine) (listed, error) {
	infos := gatewayhooks.List(eng.Paths.Home)
	if infos == nil {
		infos = []gatewayhooks.Info{}
	}
	return listed{Items: infos, Count: len(infos), Text: func(w io.Writer) {
		fmt.Fprintf(w, "Gateway hooks (%d), in %s:\n", len(infos), gatewayhooks.Dir(eng.Paths.Home))
		for _, in := range infos {
			fmt.Fprintf(w, "\n  %s\n", in.Name)
			if in.Kind != "" {
				kind := in.Kind
				if in.Command != "" {
					kind += ": " + in.Command
				}
				fmt.Fprintf(w, "    kind:    %s\n", kind)
				fmt.Fprintf(w, "    events:  %s\n", strings.Join(in.Events, ", "))
			}
			status := in.Status
			if in.Error != "" {
				status += ": " + in.Error
			}
			fmt.Fprintf(w, "    status:  %s\n", status)
			for _, n := range in.Notes {
				fmt.Fprintf(w, "    note:    %s\n", n)
			}
		}
	}}, nil
}
