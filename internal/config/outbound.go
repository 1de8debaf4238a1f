package config

import (
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/noora-hooks/noora-hooks/protocol"
)

// Limits of SPEC §7.
const (
	DefaultOutboundTimeout = 10 * time.Second
	MinOutboundTimeout     = 1 * time.Second
	MaxOutboundTimeout     = 60 * time.Second
	// DefaultOutboundSpoolLimit is how many deliveries the spool holds before
	// new ones are dropped; outbound_spool_limit changes it.
	DefaultOutboundSpoolLimit = 1000
	// MaxOutboundSpoolLimit keeps a typo from turning the spool into a disk filler.
	MaxOutboundSpoolLimit = 100000
)

// OutboundTarget is one validated `hooks.outbound[i]` entry (SPEC §7).
type OutboundTarget struct {
	// Name is the label in logs and `outbound test`; the url when not set.
	Name string
	// URL is an absolute http or https URL.
	URL string
	// Events are catalogue events in config order, never empty, without
	// duplicates, and without events an earlier entry already sends to URL.
	Events []string
	// Matcher filters the tool-scoped events (pre_tool_call, post_tool_call)
	// by tool name; the entry's other events are sent whatever the tool.
	// nil: every tool.
	Matcher *Matcher
	// Timeout is per attempt, 1..60 s.
	Timeout time.Duration
	// SecretEnv names the environment variable that holds the HMAC secret.
	SecretEnv string
	// Secret is the literal `secret:`, used only when SecretEnv is not set.
	Secret string
	// Line is where the entry starts in the file; Index its position in the
	// list, from 1.
	Line  int
	Index int
}

// SigningKey returns the HMAC secret of the target, read through getenv.
// SPEC §7: when secret_env is set, only that variable counts: if it is empty
// the deliveries are UNSIGNED and warning says so, even with a literal secret.
// ok is false when deliveries go unsigned.
func (t OutboundTarget) SigningKey(getenv func(string) string) (key string, ok bool, warning string) {
	if t.SecretEnv != "" {
		v := getenv(t.SecretEnv)
		if strings.TrimSpace(v) == "" {
			why := "; set it to sign the deliveries"
			if t.Secret != "" {
				why = " (the literal secret is not used when secret_env is set); set it to sign the deliveries"
			}
			return "", false, fmt.Sprintf("outbound target %q: secret_env %s is empty, so its deliveries are UNSIGNED%s", t.Name, t.SecretEnv, why)
		}
		return v, true, ""
	}
	if t.Secret != "" {
		return t.Secret, true, ""
	}
	return "", false, ""
}

// Signed reports whether deliveries to t carry X-Noora-Signature-256.
func (t OutboundTarget) Signed(getenv func(string) string) bool {
	_, ok, _ := t.SigningKey(getenv)
	return ok
}

// Wants reports whether t receives event, given the call's tool name (ok is
// false when the call has none). A matcher tests tool-scoped events only.
func (t OutboundTarget) Wants(event protocol.Event, tool string, ok bool) bool {
	for _, e := range t.Events {
		if e == event.Name {
			return !event.ToolScoped() || t.Matcher.Match(tool, ok)
		}
	}
	return false
}

// SpoolLimit is outbound_spool_limit, or its default.
func (c *Config) SpoolLimit() int {
	if c == nil || c.OutboundSpoolLimit <= 0 { // nil: no config read (safe mode)
		return DefaultOutboundSpoolLimit
	}
	return c.OutboundSpoolLimit
}

func (c *Config) parseSpoolLimit(n *yaml.Node) int {
	return int(c.wholeNumber(n, "outbound_spool_limit", "", 1, DefaultOutboundSpoolLimit, MaxOutboundSpoolLimit))
}

// parseOutbound reads hooks.outbound. Like shell hooks, a bad entry is skipped
// or repaired with a warning; it never stops the rest.
func (c *Config) parseOutbound(list *yaml.Node) {
	if isNullNode(list) {
		return
	}
	if list.Kind != yaml.SequenceNode {
		c.warn(list, "hooks.outbound: expected a list of targets; ignored")
		return
	}
	type key struct{ url, event string }
	sentBy := map[key]int{}   // (url, event) → entry index that sends it
	names := map[string]int{} // explicit name → entry index
	for i, n := range list.Content {
		t, ok := c.parseTarget(i+1, n)
		if !ok {
			continue
		}
		where := fmt.Sprintf("hooks.outbound entry %d (%s)", t.Index, t.Name)
		kept := t.Events[:0:0]
		for _, e := range t.Events {
			k := key{t.URL, e}
			if first, dup := sentBy[k]; dup {
				c.warn(n, "%s: entry %d already sends %s to %s; delivered once", where, first, e, t.URL)
				continue
			}
			sentBy[k] = t.Index
			kept = append(kept, e)
		}
		if len(kept) == 0 {
			c.warn(n, "%s: no event left after removing duplicates; skipped", where)
			continue
		}
		t.Events = kept
		if first, dup := names[t.Name]; dup {
			c.warn(n, "%s: entry %d has the same name; `outbound test %s` picks entry %d", where, first, t.Name, first)
		} else {
			names[t.Name] = t.Index
		}
		c.Outbound = append(c.Outbound, t)
	}
}

func (c *Config) parseTarget(index int, n *yaml.Node) (OutboundTarget, bool) {
	where := fmt.Sprintf("hooks.outbound entry %d", index)
	if n.Kind != yaml.MappingNode {
		c.warn(n, "%s: expected a mapping with a url and events; skipped", where)
		return OutboundTarget{}, false
	}
	t := OutboundTarget{Timeout: DefaultOutboundTimeout, Line: n.Line, Index: index}
	var urlNode, events, timeout, matcher *yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch k.Value {
		case "name":
			t.Name = c.stringField(where, "name", v)
		case "url":
			urlNode = v
		case "events":
			events = v
		case "secret_env":
			t.SecretEnv = c.stringField(where, "secret_env", v)
		case "secret":
			t.Secret = c.stringField(where, "secret", v)
		case "timeout":
			timeout = v
		case "matcher":
			matcher = v
		}
	}
	if urlNode == nil || c.stringField(where, "url", urlNode) == "" {
		c.warn(n, "%s: no url; skipped", where)
		return OutboundTarget{}, false
	}
	u, ok := c.parseURL(where, urlNode)
	if !ok {
		return OutboundTarget{}, false
	}
	t.URL = u
	if t.Name == "" {
		t.Name = t.URL
	}
	where = fmt.Sprintf("hooks.outbound entry %d (%s)", index, t.Name)
	t.Events = c.parseEvents(where, events)
	if len(t.Events) == 0 {
		c.warn(n, "%s: no valid event; skipped", where)
		return OutboundTarget{}, false
	}
	if timeout != nil {
		t.Timeout = c.parseOutboundTimeout(where, timeout)
	}
	if matcher != nil {
		if src := c.stringField(where, "matcher", matcher); src != "" {
			toolScoped := false
			for _, e := range t.Events {
				if ev, _ := protocol.Lookup(e); ev.ToolScoped() {
					toolScoped = true
				}
			}
			if toolScoped {
				t.Matcher = NewMatcher(src)
			} else {
				c.warn(matcher, "%s: matcher applies only to pre_tool_call and post_tool_call, and the entry has neither; dropped", where)
			}
		}
	}
	return t, true
}

// stringField reads a scalar as trimmed text; anything else warns and is "".
func (c *Config) stringField(where, field string, v *yaml.Node) string {
	if isNullNode(v) {
		return ""
	}
	if v.Kind != yaml.ScalarNode {
		c.warn(v, "%s: %s must be a string; ignored", where, field)
		return ""
	}
	return strings.TrimSpace(v.Value)
}

func (c *Config) parseURL(where string, n *yaml.Node) (string, bool) {
	raw := strings.TrimSpace(n.Value)
	u, err := url.Parse(raw)
	if err != nil {
		c.warn(n, "%s: url %q cannot be parsed: %v; skipped", where, raw, unwrapURLError(err))
		return "", false
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		c.warn(n, "%s: url %q must start with https:// (or http://); skipped", where, raw)
		return "", false
	}
	if u.Host == "" || u.Hostname() == "" {
		c.warn(n, "%s: url %q has no host; skipped", where, raw)
		return "", false
	}
	if scheme == "http" && !isLoopback(u.Hostname()) {
		c.warn(n, "%s: url %q is plain http: event payloads (tool inputs included) and signatures cross the network unencrypted; use https", where, raw)
	}
	return raw, true
}

func unwrapURLError(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err
	}
	return err
}

// isLoopback reports whether host never leaves this machine: plain http there
// exposes nothing, so it does not warn.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (c *Config) parseEvents(where string, n *yaml.Node) []string {
	if n == nil || isNullNode(n) {
		return nil
	}
	var items []*yaml.Node
	switch n.Kind {
	case yaml.SequenceNode:
		items = n.Content
	case yaml.ScalarNode:
		items = []*yaml.Node{n} // `events: on_session_end` means a list of one
	default:
		c.warn(n, "%s: events must be a list of event names; ignored", where)
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, item := range items {
		if item.Kind != yaml.ScalarNode || isNullNode(item) {
			c.warn(item, "%s: events: every item must be an event name; one is skipped", where)
			continue
		}
		name := strings.TrimSpace(item.Value)
		if _, ok := protocol.Lookup(name); !ok {
			c.warn(item, "%s: unknown event %q dropped; %s", where, name, Suggest(name))
			continue
		}
		if !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	return out
}

func (c *Config) parseOutboundTimeout(where string, n *yaml.Node) time.Duration {
	minS, maxS := int64(MinOutboundTimeout/time.Second), int64(MaxOutboundTimeout/time.Second)
	secs, ok := intValue(n)
	switch {
	case !ok:
		c.warn(n, "%s: timeout %q is not a whole number of seconds; using %d", where, n.Value, int(DefaultOutboundTimeout/time.Second))
		return DefaultOutboundTimeout
	case secs < minS:
		c.warn(n, "%s: timeout %d is under the minimum; clamped to %d", where, secs, minS)
		return MinOutboundTimeout
	case secs > maxS:
		c.warn(n, "%s: timeout %d is over the maximum; clamped to %d", where, secs, maxS)
		return MaxOutboundTimeout
	}
	return time.Duration(secs) * time.Second
}
