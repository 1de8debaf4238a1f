package config

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Entry is one hooks.<event> entry that `noora-hooks import` writes.
type Entry struct {
	Event        string
	Matcher      string // "" for none
	Command      string
	Timeout      int // seconds; 0 leaves the default
	FailClosed   bool
	Dialect      string
	DialectEvent string
	// URL makes the entry a URL hook (written as url: instead of command:;
	// Command is ignored), with its headers and allowed_env_vars.
	URL            string
	Headers        []Header
	AllowedEnvVars []string
	// Sequence is the entry's `sequence:` (ShellHook.Sequence); "" for none.
	Sequence string
	// Comment is written above the entry, one "# " line per line.
	Comment string
}

// identity is what makes two entries the same hook: what the parser
// deduplicates on (SPEC §2), plus the dialect fields.
func (e Entry) identity() string {
	command := e.Command
	if e.URL != "" {
		command = e.URL // a URL hook stands where a command does (config/urlhook.go)
	}
	return strings.Join([]string{e.Event, strings.TrimSpace(e.Matcher), strings.TrimSpace(command), e.Dialect, e.DialectEvent}, "\x00")
}

// AddEntries returns the config text doc (which may be empty) with entries
// appended to their hooks.<event> lists, creating the lists and the hooks
// mapping when missing. Everything already there is kept, comments included
// as far as yaml.v3 keeps them (it re-indents, and drops blank lines). An
// entry equal to one already in the file, or earlier in entries, is not
// added again: added and present count both kinds. header is a comment for
// a new file. path names the file in errors only.
func AddEntries(path string, doc []byte, header string, entries []Entry) (out []byte, added, present int, err error) {
	var root yaml.Node
	if len(bytes.TrimSpace(doc)) > 0 {
		if err := yaml.Unmarshal(doc, &root); err != nil {
			return nil, 0, 0, syntaxError(path, doc, err)
		}
	}
	if len(root.Content) == 0 {
		root = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}}
		root.HeadComment = header
	}
	top := root.Content[0]
	if isNullNode(top) {
		*top = yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", HeadComment: top.HeadComment}
	}
	if top.Kind != yaml.MappingNode {
		return nil, 0, 0, fmt.Errorf("%s: the config is not a mapping of settings; fix it before importing into it", path)
	}
	hooks, err := child(top, "hooks", yaml.MappingNode)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("%s: %w", path, err)
	}
	seen := map[string]bool{}
	scanned := map[*yaml.Node]bool{}
	for _, e := range entries {
		list, err := child(hooks, e.Event, yaml.SequenceNode)
		if err != nil {
			return nil, 0, 0, fmt.Errorf("%s: hooks.%w", path, err)
		}
		if !scanned[list] {
			scanned[list] = true
			for _, item := range list.Content {
				seen[entryOf(e.Event, item).identity()] = true
			}
		}
		if seen[e.identity()] {
			present++
			continue
		}
		seen[e.identity()] = true
		list.Content = append(list.Content, e.node())
		added++
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&root); err != nil {
		return nil, 0, 0, fmt.Errorf("%s: write YAML: %w", path, err)
	}
	if err := enc.Close(); err != nil {
		return nil, 0, 0, fmt.Errorf("%s: write YAML: %w", path, err)
	}
	return b.Bytes(), added, present, nil
}

// child finds key in the mapping m, adding it (of kind) when missing and
// filling it when null.
func child(m *yaml.Node, key string, kind yaml.Kind) (*yaml.Node, error) {
	want := map[yaml.Kind]string{yaml.MappingNode: "a mapping", yaml.SequenceNode: "a list"}[kind]
	tag := map[yaml.Kind]string{yaml.MappingNode: "!!map", yaml.SequenceNode: "!!seq"}[kind]
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value != key {
			continue
		}
		v := m.Content[i+1]
		if isNullNode(v) {
			*v = yaml.Node{Kind: kind, Tag: tag, LineComment: v.LineComment}
		}
		if v.Kind != kind {
			return nil, fmt.Errorf("%s is not %s; fix it before importing into it", key, want)
		}
		return v, nil
	}
	v := &yaml.Node{Kind: kind, Tag: tag}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, v)
	return v, nil
}

// entryOf reads an existing entry's identity fields.
func entryOf(event string, n *yaml.Node) Entry {
	e := Entry{Event: event}
	if n.Kind != yaml.MappingNode {
		return e
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		v := n.Content[i+1]
		if v.Kind != yaml.ScalarNode || isNullNode(v) {
			continue
		}
		switch n.Content[i].Value {
		case "matcher":
			e.Matcher = v.Value
		case "command":
			e.Command = v.Value
		case "url":
			e.URL = v.Value
		case "dialect":
			e.Dialect = strings.TrimSpace(v.Value)
		case "dialect_event":
			e.DialectEvent = strings.TrimSpace(v.Value)
		}
	}
	return e
}

func (e Entry) node() *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", HeadComment: e.Comment}
	add := func(key string, value *yaml.Node) {
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, value)
	}
	str := func(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }
	if e.Matcher != "" {
		add("matcher", str(e.Matcher))
	}
	if e.URL != "" {
		add("url", str(e.URL))
		if len(e.Headers) > 0 {
			h := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			for _, hd := range e.Headers {
				h.Content = append(h.Content, str(hd.Name), str(hd.Value))
			}
			add("headers", h)
		}
		if len(e.AllowedEnvVars) > 0 {
			l := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: yaml.FlowStyle}
			for _, name := range e.AllowedEnvVars {
				l.Content = append(l.Content, str(name))
			}
			add("allowed_env_vars", l)
		}
	} else {
		add("command", str(e.Command))
	}
	if e.Timeout > 0 {
		add("timeout", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(e.Timeout)})
	}
	if e.FailClosed {
		add("fail_closed", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "true"})
	}
	if e.Dialect != "" {
		add("dialect", str(e.Dialect))
	}
	if e.DialectEvent != "" {
		add("dialect_event", str(e.DialectEvent))
	}
	if e.Sequence != "" {
		add("sequence", str(e.Sequence))
	}
	return n
}
