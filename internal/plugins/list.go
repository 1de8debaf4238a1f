package plugins

import (
	"context"
	"encoding/json"
	"path/filepath"
	"sort"

	"github.com/noora-hooks/noora-hooks/plugins/wire"
	"github.com/noora-hooks/noora-hooks/protocol"
)

// Status of a plugin in a listing.
const (
	StatusOK       = "ok"       // it started and said hello
	StatusError    = "error"    // it is not a valid plugin, or it failed to start
	StatusDisabled = "disabled" // NOORA_SAFE_MODE: not started
)

// Info is one plugin as `plugins list` (and `list`) shows it.
type Info struct {
	Name        string
	Version     string
	Description string
	Kind        string // "python" or "command"; "" when the directory is not a plugin
	Dir         string
	Command     string // the command line of a command plugin
	Hooks       []wire.HookDecl
	Sections    []string // the ids it declared, as given
	Status      string
	Error       string
	// Notes are warnings that do not stop it from running: imports of the
	// agent's modules that mean it needs the agent's process.
	Notes []string
}

// MarshalJSON gives the documented shape of `plugins list --json`:
// {"name", "version", "description", "kind", "dir", "command", "hooks":
// [{"event", "callback"}], "sections": [ids], "status", "error", "notes"};
// every key is always there, "command" and "error" are null when they do not
// apply.
func (i Info) MarshalJSON() ([]byte, error) {
	hooks := make([]protocol.Object, 0, len(i.Hooks))
	for _, h := range i.Hooks {
		hooks = append(hooks, protocol.Object{
			{Key: "event", Value: protocol.String(h.Event)},
			{Key: "callback", Value: protocol.String(h.Callback)},
		})
	}
	sections, notes := i.Sections, i.Notes
	if sections == nil {
		sections = []string{}
	}
	if notes == nil {
		notes = []string{}
	}
	return protocol.Object{
		{Key: "name", Value: protocol.String(i.Name)},
		{Key: "version", Value: protocol.String(i.Version)},
		{Key: "description", Value: protocol.String(i.Description)},
		{Key: "kind", Value: protocol.String(i.Kind)},
		{Key: "dir", Value: protocol.String(i.Dir)},
		{Key: "command", Value: nullable(i.Command)},
		{Key: "hooks", Value: protocol.Raw(hooks)},
		{Key: "sections", Value: protocol.Raw(sections)},
		{Key: "status", Value: protocol.String(i.Status)},
		{Key: "error", Value: nullable(i.Error)},
		{Key: "notes", Value: protocol.Raw(notes)},
	}.MarshalJSON()
}

func nullable(s string) json.RawMessage {
	if s == "" {
		return json.RawMessage("null")
	}
	return protocol.String(s)
}

func info(p *Plugin) Info {
	return Info{
		Name: p.Name, Version: p.Version, Description: p.Description,
		Kind: p.Kind(), Dir: p.Dir, Command: p.CommandLine,
		Notes: AgentProcessNotes(p),
	}
}

// AgentProcessNotes are the imports of the agent's modules in a Python
// plugin, as notes that it needs the agent's process (agentimports.go).
func AgentProcessNotes(p *Plugin) []string {
	if p.Command != nil {
		return nil
	}
	var notes []string
	for _, imp := range FindAgentImports(p.Dir) {
		notes = append(notes, imp.String())
	}
	return notes
}

// List starts every plugin (those not running yet) and describes it: what
// it registered, or why it cannot run. Directories that are not valid
// plugins are listed too, with status "error", in directory order.
func (m *Manager) List() []Info {
	m.warned.Do(func() {}) // the listing shows them
	var out []Info
	for i, s := range m.ensure(context.Background()) {
		in := info(m.plugins[i])
		if s.err != nil {
			in.Status, in.Error = StatusError, s.err.Error()
		} else {
			in.Status = StatusOK
			in.Hooks = s.proc.Hello.Hooks
			for _, d := range s.proc.Hello.Sections {
				id, ok := d.IDString()
				if !ok {
					id = d.ID.Raw
				}
				in.Sections = append(in.Sections, id)
			}
		}
		out = append(out, in)
	}
	return withProblems(out, m.problems)
}

// List describes the plugins under opts.Home, starting each one to learn what
// it registers, and stops them again. It is what `plugins list` prints.
func List(opts Options) []Info {
	m := NewManager(opts)
	defer m.Close()
	return m.List()
}

// ListDisabled describes the plugins under home without starting any: in
// safe mode (NOORA_SAFE_MODE) none is registered.
func ListDisabled(home string) []Info {
	plugins, problems := Discover(home)
	out := make([]Info, 0, len(plugins))
	for _, p := range plugins {
		in := info(p)
		in.Status = StatusDisabled
		out = append(out, in)
	}
	return withProblems(out, problems)
}

func withProblems(out []Info, problems []Problem) []Info {
	for _, p := range problems {
		out = append(out, Info{Name: p.Name, Dir: p.Dir, Status: StatusError, Error: p.Msg})
	}
	sort.SliceStable(out, func(i, j int) bool { return filepath.Base(out[i].Dir) < filepath.Base(out[j].Dir) })
	return out
}
