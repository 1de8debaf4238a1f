package plugins

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/noora-hooks/noora-hooks/plugins/wire"
	"github.com/noora-hooks/noora-hooks/protocol"
)

// The contract of cache-safe system prompt sections (SPEC §10 and the Noora
// guide's "Cache-safe system prompt sections"). Sizes are in characters
// (Unicode code points, as Python's len counts them).
const (
	// MaxSectionChars caps one section's text; a larger max_chars is capped.
	MaxSectionChars = 4000
	// MaxSectionsTotal caps all accepted sections together, audit headings
	// and the blank lines between sections included.
	MaxSectionsTotal = 8000
	// MaxSectionCount caps how many sections are accepted.
	MaxSectionCount = 32
	// SectionPosition is the only placement anchor.
	SectionPosition = "after_memory"
)

// validSectionID reports whether id has the shape of a section id: 1-128 of
// a-z 0-9 . _ -. (A regexp with {1,128} costs 0.3 ms to compile at every
// start of noora-hooks, which exec pays on every event.)
func validSectionID(id string) bool {
	if len(id) < 1 || len(id) > 128 || id[0] == '.' || id[0] == '_' || id[0] == '-' {
		return false
	}
	for i := 0; i < len(id); i++ {
		switch c := id[i]; {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '.', c == '_', c == '-':
		default:
			return false
		}
	}
	return true
}

// Section is one accepted system prompt section.
type Section struct {
	ID       string
	Plugin   string
	Position string
	Chars    int // of Text
	Text     string
}

// SkippedSection is a section that was not rendered, and why.
type SkippedSection struct {
	ID     string // as given, quoted when it was not a string
	Plugin string
	Reason string
}

// Sections is the rendered plugin part of a system prompt.
type Sections struct {
	// Text is every accepted section, sorted by id, each under its audit
	// heading, separated by blank lines; at most MaxSectionsTotal characters.
	Text     string
	Accepted []Section
	Skipped  []SkippedSection
}

// Heading is the audit heading of an accepted section: it names the
// section, its plugin, its position and its size.
func Heading(s Section) string {
	return fmt.Sprintf("## Plugin section %s (plugin %s, position %s, %d chars)", s.ID, s.Plugin, s.Position, s.Chars)
}

// candidate is a declared section that passed the checks that need no text.
type candidate struct {
	plugin   *Plugin
	proc     *Process
	id       string
	maxChars int
}

// Sections renders the system prompt sections of every plugin for a new
// session described by sessionInfo (session_id, model, provider, platform,
// profile_name, cwd). Every section that is skipped is also reported
// through Options.Warn; rendering always goes on.
func (m *Manager) Sections(ctx context.Context, sessionInfo protocol.Object) Sections {
	var out Sections
	skip := func(plugin, id, format string, args ...any) {
		reason := fmt.Sprintf(format, args...)
		out.Skipped = append(out.Skipped, SkippedSection{ID: id, Plugin: plugin, Reason: reason})
		m.opts.Warn(fmt.Sprintf("plugin %q: system prompt section %s skipped: %s", plugin, quoteID(id), reason))
	}

	var cands []candidate
	seen := map[string]string{} // id → plugin that has it
	for i, s := range m.ensure(context.Background()) {
		p := m.plugins[i]
		if s.err != nil {
			m.opts.Warn(fmt.Sprintf("plugin %q cannot run, so its system prompt sections are missing: %v", p.Name, s.err))
			continue
		}
		for _, d := range s.proc.Hello.Sections {
			c, id, reason := check(d)
			if reason != "" {
				skip(p.Name, id, "%s", reason)
				continue
			}
			if owner, dup := seen[id]; dup {
				skip(p.Name, id, "the id is already taken by plugin %q", owner)
				continue
			}
			seen[id] = p.Name
			if c.maxChars > MaxSectionChars {
				m.opts.Warn(fmt.Sprintf("plugin %q: system prompt section %s: max_chars %d is over the cap; capped to %d", p.Name, quoteID(id), c.maxChars, MaxSectionChars))
				c.maxChars = MaxSectionChars
			}
			c.plugin, c.proc = p, s.proc
			cands = append(cands, c)
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].id < cands[j].id })

	total := 0
	var blocks []string
	for _, c := range cands {
		name := c.plugin.Name
		if len(out.Accepted) == MaxSectionCount {
			skip(name, c.id, "%d sections are already accepted, the most there may be", MaxSectionCount)
			continue
		}
		msg, err := c.proc.Section(ctx, m.opts.CallbackTimeout, c.id, sessionInfo)
		var cbErr *CallbackError
		switch {
		case errors.As(err, &cbErr):
			skip(name, c.id, "it raised %v", cbErr)
			continue
		case err != nil:
			skip(name, c.id, "%v", err)
			continue
		case msg.Value.Type != gjson.String:
			skip(name, c.id, "it is %s, not a string", protocol.KindOf(msg.Value))
			continue
		}
		text := msg.Value.String()
		chars := utf8.RuneCountInString(text)
		switch {
		case strings.TrimSpace(text) == "":
			skip(name, c.id, "it is empty")
			continue
		case chars > c.maxChars:
			skip(name, c.id, "it is %d characters, over its limit of %d", chars, c.maxChars)
			continue
		}
		s := Section{ID: c.id, Plugin: name, Position: SectionPosition, Chars: chars, Text: text}
		block := Heading(s) + "\n" + text
		add := utf8.RuneCountInString(block)
		if len(blocks) > 0 {
			add += 2 // the blank line between sections
		}
		if total+add > MaxSectionsTotal {
			skip(name, c.id, "with its heading it would bring the plugin sections to %d characters, over the budget of %d", total+add, MaxSectionsTotal)
			continue
		}
		total += add
		blocks = append(blocks, block)
		out.Accepted = append(out.Accepted, s)
	}
	out.Text = strings.Join(blocks, "\n\n")
	return out
}

// check applies the rules that need no text: the id, the position and
// max_chars. It returns the id as text for messages and, when the section is
// refused, why.
func check(d wire.SectionDecl) (candidate, string, string) {
	id, ok := d.IDString()
	if !ok {
		shown := clipRaw(d.ID.Raw)
		if !d.ID.Exists() {
			shown = "(none)"
		}
		return candidate{}, shown, fmt.Sprintf("its id is %s, not a string", protocol.KindOf(d.ID))
	}
	if !validSectionID(id) {
		return candidate{}, id, "its id must be 1-128 characters of a-z, 0-9, '.', '_' and '-'"
	}
	switch pos := d.Position; {
	case !pos.Exists() || pos.Type == gjson.Null:
	case pos.Type != gjson.String || pos.String() != SectionPosition:
		return candidate{}, id, fmt.Sprintf("its position is %s; %q is the only one there is", pos.Raw, SectionPosition)
	}
	c := candidate{id: id, maxChars: MaxSectionChars}
	switch mc := d.MaxChars; {
	case !mc.Exists() || mc.Type == gjson.Null:
	case mc.Type == gjson.Number && mc.Float() >= 1 && mc.Float() == math.Trunc(mc.Float()):
		c.maxChars = int(min(mc.Float(), 1e9)) // capped by the caller, with a warning
	default:
		return candidate{}, id, fmt.Sprintf("its max_chars is %s, not a whole number of at least 1", clipRaw(mc.Raw))
	}
	return c, id, ""
}

func quoteID(id string) string { return fmt.Sprintf("%q", id) }

func clipRaw(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
