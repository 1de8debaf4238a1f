// Package gatewayhooks runs the Noora gateway's event hooks out of process
// (SPEC §9): directories <home>/hooks/<name>/ with a HOOK.yaml naming the
// events they want, and either a handler.py with handle(event_type, context),
// run through the plugin host embedded in the binary, or a `command:` in any
// language that reads {"event_type", "context"} on stdin and answers JSON.
//
// It must never let one handler stop the others: a handler that fails is
// logged, and every other handler of the event still runs, in order.
package gatewayhooks

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/noora-hooks/noora-hooks/internal/shellhook"

	"gopkg.in/yaml.v3"

	"github.com/noora-hooks/noora-hooks/internal/plugins"
)

// Limits.
const (
	// MaxManifestSize bounds a HOOK.yaml we read (plugins.ReadManifest).
	MaxManifestSize = plugins.MaxManifestSize
	// DefaultTimeout bounds one handler's run unless HOOK.yaml says otherwise;
	// MaxTimeout is the most it may say.
	DefaultTimeout = 60 * time.Second
	MaxTimeout     = 300 * time.Second
)

// Handler is one gateway hook directory.
type Handler struct {
	// Name is HOOK.yaml's name, else the directory's.
	Name        string
	Description string
	Dir         string
	// Events are the events it subscribes to: exact names, or "<prefix>:*".
	Events []string
	// Command is the argv of a handler in any language; nil for handler.py.
	Command     []string
	CommandLine string
	Timeout     time.Duration
}

// Kind is "python" (handler.py) or "command".
func (h *Handler) Kind() string {
	if h.Command != nil {
		return "command"
	}
	return "python"
}

// Problem is a hook directory that was skipped, or a repaired part of one.
type Problem struct {
	Name string // the directory's name
	Dir  string
	Msg  string
	// Skipped is true when the whole directory was skipped.
	Skipped bool
}

func (p Problem) String() string {
	if p.Skipped {
		return fmt.Sprintf("gateway hook %q (%s): %s; skipped", p.Name, p.Dir, p.Msg)
	}
	return fmt.Sprintf("gateway hook %q (%s): %s", p.Name, p.Dir, p.Msg)
}

// Dir is where gateway hooks live: <home>/hooks.
func Dir(home string) string { return filepath.Join(home, "hooks") }

// Discover loads the hooks under <home>/hooks in sorted order of their
// directories. An invalid manifest, one with no events, or a directory with
// no handler is a Problem and is skipped (SPEC §9).
func Discover(home string) ([]*Handler, []Problem) {
	root := Dir(home)
	names, err := plugins.Subdirs(root)
	if err != nil {
		return nil, []Problem{{Name: "hooks", Dir: root, Skipped: true, Msg: fmt.Sprintf("cannot read the gateway hooks directory: %v", err)}}
	}
	var handlers []*Handler
	var problems []Problem
	for _, name := range names {
		dir := filepath.Join(root, name)
		h, notes, err := Load(dir)
		for _, n := range notes {
			problems = append(problems, Problem{Name: name, Dir: dir, Msg: n})
		}
		if err != nil {
			problems = append(problems, Problem{Name: name, Dir: dir, Msg: err.Error(), Skipped: true})
			continue
		}
		handlers = append(handlers, h)
	}
	return handlers, problems
}

// Load reads the hook in dir. notes are parts of the manifest that were
// ignored; err means the hook cannot run.
func Load(dir string) (h *Handler, notes []string, err error) {
	data, err := plugins.ReadManifest(dir, "HOOK.yaml")
	if err != nil {
		return nil, nil, err
	}
	h, notes, err = ParseManifest(dir, data)
	if err != nil {
		return nil, notes, err
	}
	if h.Command == nil {
		if _, err := os.Stat(filepath.Join(dir, "handler.py")); err != nil {
			return nil, notes, errors.New("no handler.py and no command: in HOOK.yaml")
		}
	}
	return h, notes, nil
}

// ParseManifest reads HOOK.yaml text: name, description, events (required),
// command and timeout; other keys are ignored.
func ParseManifest(dir string, data []byte) (*Handler, []string, error) {
	h := &Handler{Name: filepath.Base(dir), Dir: dir, Timeout: DefaultTimeout}
	var notes []string
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, nil, fmt.Errorf("HOOK.yaml: %s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, nil, errors.New("HOOK.yaml: expected a mapping with name, description and events")
	}
	root := doc.Content[0]
	var events *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		null := v.Kind == yaml.ScalarNode && v.Tag == "!!null"
		switch k.Value {
		case "events":
			events = v
		case "name", "description", "command", "timeout":
			if null {
				continue
			}
			if v.Kind != yaml.ScalarNode {
				return nil, notes, fmt.Errorf("HOOK.yaml:%d: %s must be a string", v.Line, k.Value)
			}
			s := strings.TrimSpace(v.Value)
			switch k.Value {
			case "name":
				if s != "" {
					h.Name = s
				}
			case "description":
				h.Description = s
			case "command":
				if s == "" {
					return nil, notes, fmt.Errorf("HOOK.yaml:%d: command is empty", v.Line)
				}
				argv, err := shellhook.Argv(s)
				if err != nil {
					return nil, notes, fmt.Errorf("HOOK.yaml:%d: %v", v.Line, err)
				}
				if strings.Contains(argv[0], "/") && !filepath.IsAbs(argv[0]) {
					argv[0] = filepath.Join(dir, argv[0])
				}
				h.Command, h.CommandLine = argv, s
			case "timeout":
				h.Timeout, notes = timeout(v, notes)
			}
		}
	}
	if events == nil || (events.Kind == yaml.ScalarNode && events.Tag == "!!null") {
		return nil, notes, errors.New("HOOK.yaml has no events")
	}
	if events.Kind != yaml.SequenceNode {
		return nil, notes, fmt.Errorf("HOOK.yaml:%d: events must be a list of event names", events.Line)
	}
	seen := map[string]bool{}
	for _, e := range events.Content {
		name := ""
		if e.Kind == yaml.ScalarNode && e.Tag != "!!null" {
			name = strings.TrimSpace(e.Value)
		}
		if why := badEvent(name); why != "" {
			notes = append(notes, fmt.Sprintf("HOOK.yaml:%d: event %q %s; ignored", e.Line, name, why))
			continue
		}
		if !seen[name] {
			seen[name] = true
			h.Events = append(h.Events, name)
		}
	}
	if len(h.Events) == 0 {
		return nil, notes, errors.New("HOOK.yaml has no valid events")
	}
	return h, notes, nil
}

// badEvent says what is wrong with a subscribed event name, or "".
func badEvent(name string) string {
	switch {
	case name == "":
		return "is not a name"
	case strings.ContainsAny(name, " \t\r\n"):
		return "has blanks in it"
	case strings.Contains(name, "*") && !(strings.HasSuffix(name, ":*") && strings.Count(name, "*") == 1 && len(name) > 2):
		return `has a wildcard other than "<prefix>:*"`
	}
	return ""
}

func timeout(v *yaml.Node, notes []string) (time.Duration, []string) {
	var secs int
	if err := v.Decode(&secs); err != nil || secs < 1 {
		return DefaultTimeout, append(notes, fmt.Sprintf("HOOK.yaml:%d: timeout %q is not a whole number of seconds of at least 1; using %d", v.Line, v.Value, int(DefaultTimeout/time.Second)))
	}
	if secs <= int(MaxTimeout/time.Second) {
		return time.Duration(secs) * time.Second, notes
	}
	return MaxTimeout, append(notes, fmt.Sprintf("HOOK.yaml:%d: timeout %d is over the maximum; clamped to %d", v.Line, secs, int(MaxTimeout/time.Second)))
}

// Matching returns the handlers that an event fires, in order: those
// subscribed to the exact event first, then those subscribed to
// "<prefix>:*" (SPEC §9). A handler runs at most once per event.
func Matching(handlers []*Handler, event string) []*Handler {
	var out []*Handler
	taken := map[*Handler]bool{}
	for _, h := range handlers {
		for _, e := range h.Events {
			if e == event {
				out = append(out, h)
				taken[h] = true
				break
			}
		}
	}
	prefix, _, ok := strings.Cut(event, ":")
	if !ok {
		return out
	}
	wildcard := prefix + ":*"
	for _, h := range handlers {
		if taken[h] {
			continue
		}
		for _, e := range h.Events {
			if e == wildcard {
				out = append(out, h)
				break
			}
		}
	}
	return out
}
