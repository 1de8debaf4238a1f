package config

import (
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/noora-hooks/noora-hooks/protocol"
)

// target is the part of an OutboundTarget a test compares.
type target struct {
	name, url string
	events    []string
	matcher   string
	timeout   time.Duration
	secretEnv string
	secret    string
}

func summarize(ts []OutboundTarget) []target {
	var out []target
	for _, t := range ts {
		m := ""
		if t.Matcher != nil {
			m = t.Matcher.Source
		}
		out = append(out, target{t.Name, t.URL, t.Events, m, t.Timeout, t.SecretEnv, t.Secret})
	}
	return out
}

func TestParseOutbound(t *testing.T) {
	const ci = "https://ci.example.com/noora-events"
	tests := []struct {
		name     string
		yaml     string
		want     []target
		warnings []string // substrings, in order
		limit    int
	}{
		{
			name: "A full entry is read as written",
			yaml: `
hooks:
  outbound:
    - name: ci-notify
      url: https://ci.example.com/noora-events
      events: [on_session_end, post_tool_call]
      secret_env: NOORA_OUTBOUND_WEBHOOK_SECRET
      secret: literal
      timeout: 5
      matcher: "terminal|patch"
`,
			want: []target{{"ci-notify", ci, []string{"on_session_end", "post_tool_call"}, "terminal|patch", 5 * time.Second, "NOORA_OUTBOUND_WEBHOOK_SECRET", "literal"}},
		},
		{
			name: "The name defaults to the url and the timeout to 10 seconds",
			yaml: `
hooks:
  outbound:
    - url: https://ci.example.com/noora-events
      events: [subagent_stop]
`,
			want: []target{{ci, ci, []string{"subagent_stop"}, "", 10 * time.Second, "", ""}},
		},
		{
			name: "A single event name is a list of one",
			yaml: `
hooks:
  outbound:
    - url: https://ci.example.com/noora-events
      events: on_session_end
`,
			want: []target{{ci, ci, []string{"on_session_end"}, "", 10 * time.Second, "", ""}},
		},
		{
			name: "Unknown events are dropped with a suggestion and the rest kept",
			yaml: `
hooks:
  outbound:
    - url: https://ci.example.com/noora-events
      events: [on_sesion_end, subagent_stop, subagent_stop]
`,
			want:     []target{{ci, ci, []string{"subagent_stop"}, "", 10 * time.Second, "", ""}},
			warnings: []string{`config.yaml:5: hooks.outbound entry 1 (https://ci.example.com/noora-events): unknown event "on_sesion_end" dropped; did you mean "on_session_end"?`},
		},
		{
			name: "An entry left with no event is skipped",
			yaml: `
hooks:
  outbound:
    - url: https://ci.example.com/noora-events
      events: [nothing_like_an_event]
    - url: https://ci.example.com/noora-events
`,
			// Warnings read in file order: the entry (line 4) before its event (line 5).
			warnings: []string{`entry 1 (https://ci.example.com/noora-events): no valid event; skipped`, `unknown event "nothing_like_an_event" dropped; valid events: `, `entry 2 (https://ci.example.com/noora-events): no valid event; skipped`},
		},
		{
			name: "A url that is not http or https skips the entry",
			yaml: `
hooks:
  outbound:
    - url: ftp://ci.example.com/x
      events: [on_session_end]
    - url: "::not a url"
      events: [on_session_end]
    - url: https://
      events: [on_session_end]
    - events: [on_session_end]
`,
			warnings: []string{
				`entry 1: url "ftp://ci.example.com/x" must start with https:// (or http://); skipped`,
				`entry 2: url "::not a url" cannot be parsed: missing protocol scheme; skipped`,
				`entry 3: url "https://" has no host; skipped`,
				`entry 4: no url; skipped`,
			},
		},
		{
			name: "Plain http warns but is used; loopback does not warn",
			yaml: `
hooks:
  outbound:
    - url: http://dash.example.com/in
      events: [on_session_end]
    - url: http://127.0.0.1:8080/in
      events: [on_session_end]
    - url: http://localhost/in
      events: [on_session_end]
`,
			want: []target{
				{"http://dash.example.com/in", "http://dash.example.com/in", []string{"on_session_end"}, "", 10 * time.Second, "", ""},
				{"http://127.0.0.1:8080/in", "http://127.0.0.1:8080/in", []string{"on_session_end"}, "", 10 * time.Second, "", ""},
				{"http://localhost/in", "http://localhost/in", []string{"on_session_end"}, "", 10 * time.Second, "", ""},
			},
			warnings: []string{`url "http://dash.example.com/in" is plain http`},
		},
		{
			name: "The timeout is clamped to 1..60 and a bad one is 10",
			yaml: `
hooks:
  outbound:
    - {name: a, url: "https://a.example", events: [on_session_end], timeout: 0}
    - {name: b, url: "https://b.example", events: [on_session_end], timeout: 600}
    - {name: c, url: "https://c.example", events: [on_session_end], timeout: soon}
    - {name: d, url: "https://d.example", events: [on_session_end], timeout: "30"}
`,
			want: []target{
				{"a", "https://a.example", []string{"on_session_end"}, "", 1 * time.Second, "", ""},
				{"b", "https://b.example", []string{"on_session_end"}, "", 60 * time.Second, "", ""},
				{"c", "https://c.example", []string{"on_session_end"}, "", 10 * time.Second, "", ""},
				{"d", "https://d.example", []string{"on_session_end"}, "", 30 * time.Second, "", ""},
			},
			warnings: []string{"entry 1 (a): timeout 0 is under the minimum; clamped to 1", "entry 2 (b): timeout 600 is over the maximum; clamped to 60", `entry 3 (c): timeout "soon" is not a whole number of seconds; using 10`},
		},
		{
			name: "A matcher on an entry without tool events is dropped",
			yaml: `
hooks:
  outbound:
    - url: https://ci.example.com/noora-events
      events: [on_session_end]
      matcher: terminal
`,
			want:     []target{{ci, ci, []string{"on_session_end"}, "", 10 * time.Second, "", ""}},
			warnings: []string{"matcher applies only to pre_tool_call and post_tool_call, and the entry has neither; dropped"},
		},
		{
			name: "The same url for the same event twice is delivered once",
			yaml: `
hooks:
  outbound:
    - {name: first, url: "https://ci.example.com/noora-events", events: [on_session_end]}
    - {name: second, url: "https://ci.example.com/noora-events", events: [on_session_end, subagent_stop]}
    - {name: third, url: "https://ci.example.com/noora-events", events: [subagent_stop]}
`,
			want: []target{
				{"first", ci, []string{"on_session_end"}, "", 10 * time.Second, "", ""},
				{"second", ci, []string{"subagent_stop"}, "", 10 * time.Second, "", ""},
			},
			warnings: []string{"entry 2 (second): entry 1 already sends on_session_end to " + ci + "; delivered once", "entry 3 (third): entry 2 already sends subagent_stop", "entry 3 (third): no event left after removing duplicates; skipped"},
		},
		{
			name: "A second target with the same name warns",
			yaml: `
hooks:
  outbound:
    - {name: ci, url: "https://a.example", events: [on_session_end]}
    - {name: ci, url: "https://b.example", events: [on_session_end]}
`,
			want: []target{
				{"ci", "https://a.example", []string{"on_session_end"}, "", 10 * time.Second, "", ""},
				{"ci", "https://b.example", []string{"on_session_end"}, "", 10 * time.Second, "", ""},
			},
			warnings: []string{"entry 2 (ci): entry 1 has the same name; `outbound test ci` picks entry 1"},
		},
		{
			name: "Entries of the wrong shape are skipped",
			yaml: `
hooks:
  outbound:
    - just a string
    - url: [https://a.example]
      events: {on_session_end: true}
`,
			warnings: []string{"entry 1: expected a mapping with a url and events; skipped", "entry 2: url must be a string; ignored", "entry 2: no url; skipped"},
		},
		{
			name:     "An outbound section that is not a list is ignored",
			yaml:     "hooks:\n  outbound: {url: https://a.example}\n",
			warnings: []string{"hooks.outbound: expected a list of targets; ignored"},
		},
		{
			name:  "The spool limit is read",
			yaml:  "outbound_spool_limit: 25\n",
			limit: 25,
		},
		{
			name:     "A spool limit under 1 is the default",
			yaml:     "outbound_spool_limit: 0\n",
			limit:    DefaultOutboundSpoolLimit,
			warnings: []string{`outbound_spool_limit "0" is not a whole number of at least 1; using 1000`},
		},
		{
			name:     "A huge spool limit is clamped",
			yaml:     "outbound_spool_limit: 10000000\n",
			limit:    MaxOutboundSpoolLimit,
			warnings: []string{"outbound_spool_limit 10000000 is over the maximum; clamped to 100000"},
		},
		{
			name:  "No spool limit means the default",
			yaml:  "hooks: {}\n",
			limit: DefaultOutboundSpoolLimit,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse("config.yaml", []byte(tt.yaml))
			if err != nil {
				t.Fatal(err)
			}
			got := summarize(c.Outbound)
			if !slices.EqualFunc(got, tt.want, func(a, b target) bool {
				return a.name == b.name && a.url == b.url && slices.Equal(a.events, b.events) &&
					a.matcher == b.matcher && a.timeout == b.timeout && a.secretEnv == b.secretEnv && a.secret == b.secret
			}) {
				t.Errorf("targets:\n got %+v\nwant %+v", got, tt.want)
			}
			var msgs []string
			for _, w := range c.Warnings {
				msgs = append(msgs, w.String())
			}
			if len(msgs) != len(tt.warnings) {
				t.Fatalf("warnings: got %d, want %d:\n%s", len(msgs), len(tt.warnings), strings.Join(msgs, "\n"))
			}
			for i, want := range tt.warnings {
				if !strings.Contains(msgs[i], want) {
					t.Errorf("warning %d:\n got %s\nwant it to contain %s", i, msgs[i], want)
				}
			}
			if tt.limit != 0 && c.SpoolLimit() != tt.limit {
				t.Errorf("spool limit: got %d, want %d", c.SpoolLimit(), tt.limit)
			}
		})
	}
}

func TestOutboundSigningKey(t *testing.T) {
	env := map[string]string{"SET": "from-env", "BLANK": "  "}
	getenv := func(k string) string { return env[k] }
	tests := []struct {
		name       string
		target     OutboundTarget
		key        string
		signed     bool
		warningHas string
	}{
		{"A literal secret signs", OutboundTarget{Name: "t", Secret: "lit"}, "lit", true, ""},
		{"secret_env wins over a literal secret", OutboundTarget{Name: "t", SecretEnv: "SET", Secret: "lit"}, "from-env", true, ""},
		{"An empty secret_env leaves deliveries unsigned even with a literal secret", OutboundTarget{Name: "t", SecretEnv: "UNSET", Secret: "lit"}, "", false, "secret_env UNSET is empty, so its deliveries are UNSIGNED (the literal secret is not used"},
		{"A blank secret_env counts as empty", OutboundTarget{Name: "t", SecretEnv: "BLANK"}, "", false, "secret_env BLANK is empty"},
		{"No secret at all is unsigned without a warning", OutboundTarget{Name: "t"}, "", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			key, ok, warning := tt.target.SigningKey(getenv)
			if key != tt.key || ok != tt.signed {
				t.Errorf("got key %q signed %v, want %q %v", key, ok, tt.key, tt.signed)
			}
			if (tt.warningHas == "") != (warning == "") || !strings.Contains(warning, tt.warningHas) {
				t.Errorf("warning %q, want one containing %q", warning, tt.warningHas)
			}
			if tt.target.Signed(getenv) != tt.signed {
				t.Errorf("Signed disagrees with SigningKey")
			}
		})
	}
}

func TestOutboundWants(t *testing.T) {
	pre, _ := protocol.Lookup(protocol.PreToolCall)
	end, _ := protocol.Lookup("on_session_end")
	stop, _ := protocol.Lookup("subagent_stop")
	tg := OutboundTarget{Events: []string{protocol.PreToolCall, "on_session_end"}, Matcher: NewMatcher("terminal|patch")}
	tests := []struct {
		name  string
		event protocol.Event
		tool  string
		ok    bool
		want  bool
	}{
		{"A tool event whose tool matches the whole pattern is wanted", pre, "terminal", true, true},
		{"A tool event whose tool matches only part of the pattern is not", pre, "terminal2", true, false},
		{"A tool event without a tool name is not wanted under a matcher", pre, "", false, false},
		{"A non-tool event is wanted whatever the matcher", end, "", false, true},
		{"An event the target does not list is not wanted", stop, "", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tg.Wants(tt.event, tt.tool, tt.ok); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// FuzzParseOutbound checks that any config text parses without a panic and
// that every target it yields keeps the invariants downstream relies on.
func FuzzParseOutbound(f *testing.F) {
	f.Add([]byte("hooks:\n  outbound:\n    - {name: a, url: 'https://a.example', events: [on_session_end], timeout: 3, matcher: x}\n"))
	f.Add([]byte("hooks:\n  outbound:\n    - url: http://h/x\n      events: pre_tool_call\n      matcher: '['\n    - 7\noutbound_spool_limit: -1\n"))
	f.Add([]byte("hooks: {outbound: [{url: 'https://a', events: [a, b, on_session_end, on_session_end]}, {url: 'https://a', events: [on_session_end]}]}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse("fuzz.yaml", data)
		if err != nil {
			return
		}
		if l := c.SpoolLimit(); l < 1 || l > MaxOutboundSpoolLimit {
			t.Fatalf("spool limit %d out of range", l)
		}
		type key struct{ url, event string }
		seen := map[key]bool{}
		for _, tg := range c.Outbound {
			u, err := url.Parse(tg.URL)
			if err != nil || (!strings.EqualFold(u.Scheme, "http") && !strings.EqualFold(u.Scheme, "https")) || u.Host == "" {
				t.Fatalf("target url %q is not an absolute http(s) url", tg.URL)
			}
			if tg.Name == "" || len(tg.Events) == 0 {
				t.Fatalf("target %+v has no name or no events", tg)
			}
			if tg.Timeout < MinOutboundTimeout || tg.Timeout > MaxOutboundTimeout {
				t.Fatalf("timeout %v out of range", tg.Timeout)
			}
			for _, e := range tg.Events {
				if _, ok := protocol.Lookup(e); !ok {
					t.Fatalf("unknown event %q kept", e)
				}
				if seen[key{tg.URL, e}] {
					t.Fatalf("(%s, %s) kept twice", tg.URL, e)
				}
				seen[key{tg.URL, e}] = true
			}
		}
	})
}
