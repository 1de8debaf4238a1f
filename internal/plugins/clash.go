package plugins

import (
	"fmt"
	"path/filepath"
)

// In the agent, system prompt section ids are one namespace for all plugins:
// register_system_prompt_section raises for an id an earlier plugin already
// registered, and that plugin fails to load, its hooks with it. Plugins load
// in directory order, so the first one keeps the id. Here each plugin is a
// process of its own, so the rule is applied once the hellos are in.

// sectionClash is why plugin i, whose process said hello, does not load: a
// section id that a plugin before it declared; nil when there is none.
// earlier gives the process of plugin j < i, nil when it is not running.
func (m *Manager) sectionClash(i int, proc *Process, earlier func(j int) *Process) error {
	if proc == nil || len(proc.Hello.Sections) == 0 {
		return nil
	}
	for j := 0; j < i; j++ {
		other := earlier(j)
		if other == nil {
			continue
		}
		for _, mine := range proc.Hello.Sections {
			id, ok := mine.IDString()
			if !ok {
				continue
			}
			for _, theirs := range other.Hello.Sections {
				if tid, ok := theirs.IDString(); ok && tid == id {
					// The agent's words, as register() raised them.
					return fmt.Errorf("register() failed: ValueError: system prompt section '%s' is already registered by plugin '%s'", id, filepath.Base(m.plugins[j].Dir))
				}
			}
		}
	}
	return nil
}

// withoutClashes turns the plugins whose sections clash with an earlier
// plugin's into plugins that cannot run.
func (m *Manager) withoutClashes(out []started) {
	for i := range out {
		if out[i].err != nil {
			continue
		}
		err := m.sectionClash(i, out[i].proc, func(j int) *Process {
			if out[j].err != nil {
				return nil
			}
			return out[j].proc
		})
		if err != nil {
			out[i] = started{err: err, fresh: out[i].fresh}
		}
	}
}
