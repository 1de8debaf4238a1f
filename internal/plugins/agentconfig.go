package plugins

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/noora-hooks/noora-hooks/internal/config"
	"gopkg.in/yaml.v3"
)

// The agent reads config.yaml and plugin.yaml with PyYAML, by the rules of
// YAML 1.1: `yes` and `off` are booleans, `0755` is octal, `1e5` is a string.
// Plugins that call ctx.get_config or hermes_cli.config.load_config must see
// the values the agent would hand them, so the YAML is turned into JSON here
// by those rules, and the Python host loads that JSON.

// Limits of the conversion: a config is a few KiB written by hand; aliases
// that expand it past these are refused rather than followed.
const (
	// MaxAgentConfig bounds the config file read for plugins (bytes).
	MaxAgentConfig = 4 << 20
	// maxAgentJSON bounds the JSON it becomes, aliases expanded (bytes).
	maxAgentJSON = 16 << 20
	// maxAgentDepth bounds the nesting of mappings and sequences.
	maxAgentDepth = 200
)

// errTooLarge is YAML whose aliases expand past maxAgentJSON.
var errTooLarge = errors.New("it expands to more than 16 MiB of JSON (aliases)")

// AgentConfigJSON reads the YAML file at path as the agent would and returns
// it as JSON; nil when the file does not exist or is empty. Values JSON
// cannot hold are written as Python's json module reads them (NaN,
// Infinity), since only the Python host reads this JSON.
func AgentConfigJSON(path string) (json.RawMessage, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxAgentConfig+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(data) > MaxAgentConfig {
		return nil, fmt.Errorf("%s is over %d MiB", path, MaxAgentConfig>>20)
	}
	return YAMLToAgentJSON(data)
}

// YAMLToAgentJSON converts one YAML document to JSON by PyYAML's rules; nil
// for an empty document.
func YAMLToAgentJSON(data []byte) (json.RawMessage, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, errors.New(strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	var b bytes.Buffer
	if err := writeAgentJSON(&b, doc.Content[0], 0); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func writeAgentJSON(b *bytes.Buffer, n *yaml.Node, depth int) error {
	if b.Len() > maxAgentJSON {
		return errTooLarge
	}
	if depth > maxAgentDepth {
		return fmt.Errorf("it nests deeper than %d levels", maxAgentDepth)
	}
	switch n.Kind {
	case yaml.AliasNode:
		return writeAgentJSON(b, n.Alias, depth+1)
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			b.WriteString("null")
			return nil
		}
		return writeAgentJSON(b, n.Content[0], depth)
	case yaml.SequenceNode:
		b.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeAgentJSON(b, c, depth+1); err != nil {
				return err
			}
		}
		b.WriteByte(']')
		return nil
	case yaml.MappingNode:
		pairs, err := mappingPairs(n, depth)
		if err != nil {
			return err
		}
		b.WriteByte('{')
		for i, p := range pairs {
			if i > 0 {
				b.WriteByte(',')
			}
			k, _ := json.Marshal(p.key)
			b.Write(k)
			b.WriteByte(':')
			if err := writeAgentJSON(b, p.value, depth+1); err != nil {
				return err
			}
		}
		b.WriteByte('}')
		return nil
	}
	b.WriteString(scalarJSON(n))
	return nil
}

type pair struct {
	key   string
	value *yaml.Node
}

// mappingPairs applies PyYAML's mapping rules: merge keys (`<<: *base`, or
// a list of them, the first one winning) fill in what the mapping does not
// say itself, and a repeated key keeps its last value, in the place where it
// first appeared.
func mappingPairs(n *yaml.Node, depth int) ([]pair, error) {
	var own, merged []pair
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.Tag != "!!merge" {
			own = append(own, pair{key: keyText(k, depth), value: v})
			continue
		}
		var sources []*yaml.Node
		switch m := deref(v); m.Kind {
		case yaml.MappingNode:
			sources = []*yaml.Node{m}
		case yaml.SequenceNode:
			for j := len(m.Content) - 1; j >= 0; j-- { // later ones first: earlier ones override them
				sources = append(sources, m.Content[j])
			}
		}
		for _, src := range sources {
			if src = deref(src); src.Kind != yaml.MappingNode || depth > maxAgentDepth {
				continue
			}
			ps, err := mappingPairs(src, depth+1)
			if err != nil {
				return nil, err
			}
			merged = append(merged, ps...)
		}
	}
	var out []pair
	at := map[string]int{}
	for _, p := range append(merged, own...) {
		if i, ok := at[p.key]; ok {
			out[i].value = p.value
			continue
		}
		at[p.key] = len(out)
		out = append(out, p)
	}
	return out, nil
}

func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n.Kind == yaml.AliasNode && n.Alias != nil && i < maxAgentDepth; i++ {
		n = n.Alias
	}
	return n
}

// keyText is a mapping key as a JSON object key: its text. (PyYAML would
// make `on:` the key True; JSON keys are strings, and plugins look keys up
// by their text.) A key that is a collection is written one level deeper
// than its mapping, so that a mapping whose key names itself (`&x {*x}`)
// meets the depth bound rather than recursing for ever.
func keyText(k *yaml.Node, depth int) string {
	k = deref(k)
	if k.Kind == yaml.ScalarNode {
		return k.Value
	}
	var b bytes.Buffer
	if err := writeAgentJSON(&b, k, depth+1); err != nil {
		return ""
	}
	return b.String()
}

// scalarJSON is a scalar as the agent's PyYAML loads it (config.ReadScalar,
// the one YAML 1.1 reader), written as Python's json.dumps would: big
// integers whole, floats with a fraction, NaN and Infinity as Python writes
// them; dates and what PyYAML cannot load stay text.
func scalarJSON(n *yaml.Node) string {
	sc := config.ReadScalar(n)
	switch sc.Kind {
	case config.KindNull:
		return "null"
	case config.KindBool:
		return strconv.FormatBool(sc.Bool)
	case config.KindInt:
		return sc.Int.String()
	case config.KindFloat:
		return floatJSON(sc.Float)
	}
	text := n.Value
	if sc.Kind == config.KindString {
		text = sc.Text
	}
	b, _ := json.Marshal(text)
	return string(b)
}

// floatJSON writes f as Python's json.dumps does.
func floatJSON(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0" // stays a float in Python
	}
	return s
}
