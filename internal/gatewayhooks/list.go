package gatewayhooks

import (
	"encoding/json"
	"path/filepath"
	"sort"

	"github.com/noora-hooks/noora-hooks/internal/plugins"
	"github.com/noora-hooks/noora-hooks/protocol"
)

// Info is one gateway hook directory as `gateway list` (and `list`) shows it.
type Info struct {
	Name        string
	Description string
	Dir         string
	Kind        string // "python" or "command"; "" when the directory was skipped
	Command     string
	Events      []string
	Timeout     int      // seconds
	Status      string   // "ok" or "error"
	Error       string   // why it was skipped
	Notes       []string // parts of its HOOK.yaml that were ignored
}

// MarshalJSON gives the documented shape of `gateway list --json`: {"name",
// "description", "dir", "kind", "command", "events", "timeout", "status",
// "error", "notes"}; every key is always there, "command" and "error" are
// null when they do not apply.
func (i Info) MarshalJSON() ([]byte, error) {
	events, notes := i.Events, i.Notes
	if events == nil {
		events = []string{}
	}
	if notes == nil {
		notes = []string{}
	}
	return protocol.Object{
		{Key: "name", Value: protocol.String(i.Name)},
		{Key: "description", Value: protocol.String(i.Description)},
		{Key: "dir", Value: protocol.String(i.Dir)},
		{Key: "kind", Value: protocol.String(i.Kind)},
		{Key: "command", Value: nullable(i.Command)},
		{Key: "events", Value: protocol.Raw(events)},
		{Key: "timeout", Value: protocol.Raw(i.Timeout)},
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

// List describes every directory under <home>/hooks, in sorted order: the
// hooks that load, and those skipped with why. Nothing is run.
func List(home string) []Info {
	handlers, problems := Discover(home)
	byDir := map[string]*Info{}
	var out []*Info
	for _, h := range handlers {
		in := &Info{
			Name: h.Name, Description: h.Description, Dir: h.Dir, Kind: h.Kind(),
			Command: h.CommandLine, Events: h.Events, Timeout: int(h.Timeout.Seconds()), Status: "ok",
		}
		if h.Command == nil {
			for _, imp := range plugins.FindAgentImports(h.Dir) {
				in.Notes = append(in.Notes, imp.String())
			}
		}
		byDir[h.Dir] = in
		out = append(out, in)
	}
	for _, p := range problems {
		in, ok := byDir[p.Dir]
		if !ok {
			in = &Info{Name: p.Name, Dir: p.Dir, Status: "error"}
			byDir[p.Dir] = in
			out = append(out, in)
		}
		if p.Skipped {
			in.Status, in.Error = "error", p.Msg
		} else {
			in.Notes = append(in.Notes, p.Msg)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return filepath.Base(out[i].Dir) < filepath.Base(out[j].Dir) })
	infos := make([]Info, len(out))
	for i, in := range out {
		infos[i] = *in
	}
	return infos
}
