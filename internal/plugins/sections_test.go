package plugins

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/noora-hooks/noora-hooks/internal/dispatch"
	"github.com/noora-hooks/noora-hooks/protocol"
)

// sectionPlugin writes a Python plugin whose register() makes the given
// calls, e.g. `ctx.register_system_prompt_section("a", "text")`.
func sectionPlugin(t *testing.T, home, name string, calls ...string) {
	t.Helper()
	src := "def raising(info):\n    raise KeyError('profile_name')\n" +
		"def from_info(info):\n    return 'model is ' + info['model']\n" +
		"def number(info):\n    return 42\n" +
		"def register(ctx):\n    pass\n"
	for _, c := range calls {
		src += "    " + c + "\n"
	}
	python(t, home, name, src)
}

func section(id, text string, extra ...string) string {
	args := []string{strconv.Quote(id), text}
	return "ctx.register_system_prompt_section(" + strings.Join(append(args, extra...), ", ") + ")"
}

// repeat is a Python expression for n copies of c.
func repeat(c string, n int) string { return fmt.Sprintf("%q * %d", c, n) }

// fill returns a text length for a second section b that, after a first
// section a of aChars characters, brings the total to exactly total.
func fill(aID string, aChars int, bID string, total int) int {
	a := Section{ID: aID, Plugin: "p", Position: SectionPosition, Chars: aChars}
	used := utf8.RuneCountInString(Heading(a)) + 1 + aChars + 2
	for n := 1; n <= MaxSectionChars; n++ {
		b := Section{ID: bID, Plugin: "p", Position: SectionPosition, Chars: n}
		if used+utf8.RuneCountInString(Heading(b))+1+n == total {
			return n
		}
	}
	panic("no fill")
}

func TestSectionsAtAndOverEveryCap(t *testing.T) {
	needPython(t)
	exact := fill("a", 3900, "b", MaxSectionsTotal)
	many := func(n int) []string {
		var calls []string
		for i := 0; i < n; i++ {
			calls = append(calls, section(fmt.Sprintf("s%02d", i), `"x"`))
		}
		return calls
	}
	tests := []struct {
		name     string
		calls    []string
		accepted string // ids, comma-separated
		skipped  string // "id: reason part" entries separated by " | "
		warning  string // a warning that must be there
		refused  string // the plugin fails to load with this error
	}{
		{name: "A section of exactly 4,000 characters is accepted", calls: []string{section("a", repeat("é", 4000))}, accepted: "a"},
		{name: "A section of 4,001 characters is skipped", calls: []string{section("a", repeat("x", 4001))}, skipped: "a: it is 4001 characters, over its limit of 4000"},
		{name: "A section at its own max_chars is accepted", calls: []string{section("a", repeat("x", 10), "max_chars=10")}, accepted: "a"},
		{name: "A section over its own max_chars is skipped", calls: []string{section("a", repeat("x", 11), "max_chars=10")}, skipped: "a: it is 11 characters, over its limit of 10"},
		// The agent's register_system_prompt_section raises on what it
		// refuses, and the whole plugin fails to load (issue 17).
		{name: "A max_chars over 4,000 fails the plugin's load", calls: []string{section("a", repeat("x", 10), "max_chars=5000")}, refused: "register() failed: ValueError: system prompt section max_chars must be between 1 and 4000"},
		{name: "A max_chars that is not a whole number fails the plugin's load", calls: []string{section("a", `"x"`, "max_chars='big'")}, refused: "ValueError: system prompt section max_chars must be between 1 and 4000"},
		{name: "A max_chars given by position fails the plugin's load", calls: []string{section("a", `"x"`, `"after_memory"`)}, refused: "TypeError: PluginContext.register_system_prompt_section() takes 3 positional arguments but 4 were given"},
		{
			name:     "Sections that fill the 8,000-character budget exactly are accepted",
			calls:    []string{section("a", repeat("x", 3900)), section("b", repeat("y", exact))},
			accepted: "a,b",
		},
		{
			name:     "A section one character over the budget is skipped, and a later one that fits is still taken",
			calls:    []string{section("a", repeat("x", 3900)), section("b", repeat("y", exact+1)), section("c", `"small"`)},
			accepted: "a,c", skipped: "b: with its heading it would bring the plugin sections to 8001 characters, over the budget of 8000",
		},
		{name: "32 sections are accepted", calls: many(32), accepted: strings.Join(idsOf(32), ",")},
		{
			name: "The 33rd section is skipped", calls: many(33), accepted: strings.Join(idsOf(32), ","),
			skipped: "s32: 32 sections are already accepted",
		},
		{name: "An id of 128 characters is accepted", calls: []string{section(strings.Repeat("a", 128), `"x"`)}, accepted: strings.Repeat("a", 128)},
		{name: "An id of 129 characters fails the plugin's load", calls: []string{section(strings.Repeat("a", 129), `"x"`)}, refused: "ValueError: system prompt section id must be 1-128 lowercase characters using letters, numbers, '.', '_', or '-'"},
		{name: "An empty id fails the plugin's load", calls: []string{section("", `"x"`)}, refused: "ValueError: system prompt section id must be"},
		{name: "An id that starts with a dot fails the plugin's load", calls: []string{section(".rules", `"x"`)}, refused: "ValueError: system prompt section id must be"},
		{name: "Upper case in an id fails the plugin's load", calls: []string{section("Rules", `"x"`)}, refused: "ValueError: system prompt section id must be"},
		{name: "An id that is not a string fails the plugin's load", calls: []string{"ctx.register_system_prompt_section(42, 'x')"}, refused: "ValueError: system prompt section id must be"},
		{name: "Content that is neither text nor callable fails the plugin's load", calls: []string{section("a", "42")}, refused: "TypeError: system prompt section content must be a string or callable"},
		{name: "A second section with the same id fails the plugin's load", calls: []string{section("a", `"one"`), section("a", `"two"`)}, refused: `ValueError: system prompt section 'a' is already registered by plugin 'p'`},
		{name: "A position other than after_memory fails the plugin's load", calls: []string{section("a", `"x"`, `position="before_memory"`)}, refused: "ValueError: system prompt section position must be one of: after_memory"},
		{name: "An empty section is skipped", calls: []string{section("a", `"  \n"`)}, skipped: "a: it is empty"},
		{name: "A section that is not a string is skipped", calls: []string{section("a", "number")}, skipped: "a: it raised TypeError: the section is int, not a string"},
		{name: "A section that raises is skipped", calls: []string{section("a", "raising"), section("b", `"fine"`)}, accepted: "b", skipped: "a: it raised KeyError: 'profile_name' (at __init__.py:2 in raising)"},
		{name: "A callable gets the session info", calls: []string{section("a", "from_info")}, accepted: "a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			sectionPlugin(t, home, "p", tt.calls...)
			m, rec := newManager(t, home, Options{})
			got := m.Sections(context.Background(), protocol.Object{{Key: "model", Value: protocol.String("m1")}})
			var ids, skipped []string
			for _, s := range got.Accepted {
				ids = append(ids, s.ID)
			}
			if strings.Join(ids, ",") != tt.accepted {
				t.Errorf("accepted %q, want %q (skipped %+v)", strings.Join(ids, ","), tt.accepted, got.Skipped)
			}
			for _, s := range got.Skipped {
				skipped = append(skipped, s.ID+": "+s.Reason)
			}
			all := strings.Join(skipped, " | ")
			if tt.skipped == "" && all != "" || !strings.Contains(all, tt.skipped) {
				t.Errorf("skipped %q, want %q", all, tt.skipped)
			}
			if n := utf8.RuneCountInString(got.Text); n > MaxSectionsTotal {
				t.Errorf("the sections are %d characters", n)
			}
			w := rec.all()
			if tt.refused != "" {
				want := `plugin "p" cannot run, so its system prompt sections are missing: register() failed: `
				if !strings.Contains(w, want) || !strings.Contains(w, tt.refused) {
					t.Errorf("warnings lack %q:\n%s", tt.refused, w)
				}
				return
			}
			if tt.warning != "" && !strings.Contains(w, tt.warning) {
				t.Errorf("warnings lack %q:\n%s", tt.warning, w)
			}
			if strings.Count(w, "skipped:") != len(got.Skipped) {
				t.Errorf("%d skipped sections but warnings:\n%s", len(got.Skipped), w)
			}
		})
	}
}

func idsOf(n int) []string {
	var ids []string
	for i := 0; i < n; i++ {
		ids = append(ids, fmt.Sprintf("s%02d", i))
	}
	return ids
}

func TestSectionsAreSortedByIDAcrossPluginsUnderAuditHeadings(t *testing.T) {
	needPython(t)
	home := t.TempDir()
	sectionPlugin(t, home, "alpha", section("zeta.rules", `"Last."`), section("alpha.rules", "from_info"))
	sectionPlugin(t, home, "beta", section("mid", `"Middle."`))
	m, _ := newManager(t, home, Options{})
	got := m.Sections(context.Background(), protocol.Object{{Key: "model", Value: protocol.String("m1")}})
	want := "## Plugin section alpha.rules (plugin alpha, position after_memory, 11 chars)\nmodel is m1\n\n" +
		"## Plugin section mid (plugin beta, position after_memory, 7 chars)\nMiddle.\n\n" +
		"## Plugin section zeta.rules (plugin alpha, position after_memory, 5 chars)\nLast."
	if got.Text != want {
		t.Errorf("text:\n%s\nwant:\n%s", got.Text, want)
	}
	if len(got.Skipped) != 0 {
		t.Errorf("skipped: %+v", got.Skipped)
	}
}

func TestAPluginThatTakesAnEarlierPluginsSectionIDDoesNotLoad(t *testing.T) {
	needPython(t)
	home := t.TempDir()
	sectionPlugin(t, home, "alpha", section("alpha.rules", `"First."`))
	python(t, home, "beta", "def register(ctx):\n    ctx.register_system_prompt_section('mid', 'Middle.')\n"+
		"    ctx.register_system_prompt_section('alpha.rules', 'Taken.')\n    ctx.register_hook('pre_llm_call', lambda **kw: 'beta hook')\n")
	m, rec := newManager(t, home, Options{})
	got := m.Sections(context.Background(), protocol.Object{})
	if want := "## Plugin section alpha.rules (plugin alpha, position after_memory, 6 chars)\nFirst."; got.Text != want {
		t.Errorf("text:\n%s\nwant:\n%s", got.Text, want)
	}
	clash := "register() failed: ValueError: system prompt section 'alpha.rules' is already registered by plugin 'alpha'"
	if w := rec.all(); !strings.Contains(w, `plugin "beta" cannot run, so its system prompt sections are missing: `+clash) {
		t.Errorf("warnings:\n%s", w)
	}
	res := fire(t, m, "pre_llm_call", `{}`)
	if len(res) != 1 || res[0].Answer.Text != "" || !strings.Contains(strings.Join(dispatch.Strings(res[0].Warnings), ""), clash) {
		t.Errorf("its hook ran, as the agent never would: %s %+v", names(res), res)
	}
}
