package cli

import (
	"fmt"

	"github.com/noora-hooks/noora-hooks/internal/gatewayhooks"
	"github.com/noora-hooks/noora-hooks/internal/plugins"
)

// agentProcessNotes are the plugins and gateway hooks under home that import
// the agent's own modules, and so need the agent's process: doctor reports
// them as notes, not issues, since noora-hooks still runs them.
func agentProcessNotes(home string) []string {
	notes := []string{}
	ps, _ := plugins.Discover(home)
	for _, p := range ps {
		for _, n := range plugins.AgentProcessNotes(p) {
			notes = append(notes, fmt.Sprintf("plugin %q: %s", p.Name, n))
		}
	}
	hs, _ := gatewayhooks.Discover(home)
	for _, h := range hs {
		if h.Command != nil {
			continue
		}
		for _, imp := range plugins.FindAgentImports(h.Dir) {
			notes = append(notes, fmt.Sprintf("gateway hook %q: %s", h.Name, imp))
		}
	}
	return notes
}
