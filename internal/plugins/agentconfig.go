package plugins

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"regexp"
	"strconv"
	"strings"

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

// PyYAML's implicit resolvers (yaml/resolver.py), for plain scalars only.
var (
	yaml11Bool  = regexp.MustCompile(`^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$`)
	yaml11Null  = regexp.MustCompile(`^(?:~|null|Null|NULL|)$`)
	yaml11Int   = regexp.MustCompile(`^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$`)
	yaml11Float = regexp.MustCompile(`^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9_]+(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$`)
)

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
			own = append(own, pair{key: keyText(k), value: v})
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
// by their text.)
func keyText(k *yaml.Node) string {
	k = deref(k)
	if k.Kind == yaml.ScalarNode {
		return k.Value
	}
	var b bytes.Buffer
	if err := writeAgentJSON(&b, k, maxAgentDepth-1); err != nil {
		return ""
	}
	return b.String()
}

// scalarJSON resolves one scalar as PyYAML does: an explicit tag or quotes
// make it a string; a plain scalar is null, a bool, an int or a float by the
// YAML 1.1 patterns, else a string.
func scalarJSON(n *yaml.Node) string {
	str := func() string {
		b, _ := json.Marshal(n.Value)
		return string(b)
	}
	if n.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return str()
	}
	switch n.Tag {
	case "!!str", "!!binary", "!!timestamp", "":
		if n.Tag != "!!str" || n.Style&yaml.TaggedStyle == 0 {
			break
		}
		return str()
	case "!!null":
		if n.Style&yaml.TaggedStyle != 0 {
			return "null"
		}
	case "!!bool", "!!int", "!!float":
	default:
		if strings.HasPrefix(n.Tag, "!!") || strings.HasPrefix(n.Tag, "!") {
			return str()
		}
	}
	v := n.Value
	switch {
	case yaml11Null.MatchString(v):
		return "null"
	case yaml11Bool.MatchString(v):
		return strconv.FormatBool(strings.ContainsAny(v[:1], "yYtT") || strings.EqualFold(v, "on"))
	case yaml11Int.MatchString(v):
		if s, ok := yaml11IntText(v); ok {
			return s
		}
	case yaml11Float.MatchString(v):
		return yaml11FloatText(v)
	}
	return str()
}

// yaml11IntText is an int scalar in decimal (PyYAML's construct_yaml_int).
func yaml11IntText(v string) (string, bool) {
	v = strings.ReplaceAll(v, "_", "")
	sign := ""
	if v[0] == '-' || v[0] == '+' {
		if v[0] == '-' {
			sign = "-"
		}
		v = v[1:]
	}
	n := new(big.Int)
	var ok bool
	switch {
	case v == "0":
		n, ok = n.SetInt64(0), true
	case strings.HasPrefix(v, "0b"):
		n, ok = n.SetString(v[2:], 2)
	case strings.HasPrefix(v, "0x"):
		n, ok = n.SetString(v[2:], 16)
	case v[0] == '0':
		n, ok = n.SetString(v[1:], 8)
	case strings.Contains(v, ":"):
		ok = true
		for _, part := range strings.Split(v, ":") {
			d, err := strconv.ParseInt(part, 10, 64)
			if err != nil {
				return "", false
			}
			n.Mul(n, big.NewInt(60))
			n.Add(n, big.NewInt(d))
		}
	default:
		n, ok = n.SetString(v, 10)
	}
	if !ok {
		return "", false
	}
	if sign == "-" {
		n.Neg(n)
	}
	return n.String(), true
}

// yaml11FloatText is a float scalar as Python's json module reads it back.
func yaml11FloatText(v string) string {
	v = strings.ToLower(strings.ReplaceAll(v, "_", ""))
	neg := strings.HasPrefix(v, "-")
	v = strings.TrimLeft(v, "+-")
	var f float64
	switch {
	case v == ".inf":
		if neg {
			return "-Infinity"
		}
		return "Infinity"
	case v == ".nan":
		return "NaN"
	case strings.Contains(v, ":"):
		for _, part := range strings.Split(v, ":") {
			d, _ := strconv.ParseFloat(part, 64)
			f = f*60 + d
		}
	default:
		f, _ = strconv.ParseFloat(v, 64)
	}
	if neg {
		f = -f
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eEIN") {
		s += ".0" // stays a float in Python
	}
	if strings.Contains(s, "Inf") {
		if f < 0 {
			return "-Infinity"
		}
		return "Infinity"
	}
	return s
}
