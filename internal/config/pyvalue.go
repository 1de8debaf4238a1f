package config

import (
	"math"
	"math/big"
	"strconv"
	"unicode"

	"github.com/noora-hooks/noora-hooks/protocol"
	"gopkg.in/yaml.v3"
)

// How the agent turns a config value into what it needs: Python's int() for
// a hook's timeout, isinstance(x, bool) for fail_closed, isinstance(x, str)
// for command and matcher (agent/shell_hooks.py _parse_single_entry).

// intOutcome is how Python's int(x) ends.
type intOutcome int

const (
	intOK intOutcome = iota
	// intRejected: TypeError or ValueError, which the agent catches: it
	// warns and uses the default.
	intRejected
	// intOverflow: int(inf) raises OverflowError, which the agent does not
	// catch; its hooks fail to load.
	intOverflow
)

// pyInt is Python's int(x) of the value PyYAML built: a bool is 0 or 1, a
// float is truncated toward zero, a string is parsed as a decimal integer.
func pyInt(s Scalar) (*big.Int, intOutcome) {
	switch s.Kind {
	case KindBool:
		if s.Bool {
			return big.NewInt(1), intOK
		}
		return big.NewInt(0), intOK
	case KindInt:
		return s.Int, intOK
	case KindFloat:
		switch {
		case math.IsNaN(s.Float):
			return nil, intRejected
		case math.IsInf(s.Float, 0):
			return nil, intOverflow
		}
		i, _ := big.NewFloat(math.Trunc(s.Float)).Int(nil)
		return i, intOK
	case KindString:
		if i, ok := pyIntString(s.Text); ok {
			return i, intOK
		}
	}
	return nil, intRejected
}

// pyIntString is Python's int(str): surrounding whitespace (Python's set),
// an optional sign, decimal digits of any script with single underscores
// between them. "0x1", "1e0" and "1.0" are not integers to it.
func pyIntString(text string) (*big.Int, bool) {
	s := []rune(protocol.PyStrip(text))
	neg := false
	if len(s) > 0 && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	if len(s) == 0 {
		return nil, false
	}
	digits := make([]byte, 0, len(s))
	for i, r := range s {
		if r == '_' {
			if i == 0 || i == len(s)-1 || s[i-1] == '_' {
				return nil, false
			}
			continue
		}
		d, ok := digitValue(r)
		if !ok {
			return nil, false
		}
		digits = append(digits, byte('0'+d))
	}
	i, ok := new(big.Int).SetString(string(digits), 10)
	if ok && neg {
		i.Neg(i)
	}
	return i, ok
}

// digitValue is the value of a decimal digit of any script (Unicode category
// Nd), as Python's int() reads it. Every script's digits 0..9 are ten
// consecutive code points starting at zero, so a range of the Nd table holds
// whole sets of ten.
func digitValue(r rune) (int, bool) {
	if r >= '0' && r <= '9' {
		return int(r - '0'), true
	}
	if !unicode.Is(unicode.Nd, r) {
		return 0, false
	}
	for _, rg := range unicode.Nd.R16 {
		if lo, hi := rune(rg.Lo), rune(rg.Hi); r >= lo && r <= hi && rg.Stride == 1 {
			return int(r-lo) % 10, true
		}
	}
	for _, rg := range unicode.Nd.R32 {
		if lo, hi := rune(rg.Lo), rune(rg.Hi); r >= lo && r <= hi && rg.Stride == 1 {
			return int(r-lo) % 10, true
		}
	}
	return 0, false
}

// pair is one key and value of a mapping.
type pair struct {
	key, value *yaml.Node
	merged     bool // it came from a `<<` merge key
}

// pairs lists a mapping's keys and values as PyYAML builds the dict: merge
// keys (`<<: *base`) are expanded, and a key given twice keeps its last
// value, in the place of its first. Each key that is given again gets a
// warning, since the earlier value is silently lost to the agent.
func (c *Config) pairs(where string, n *yaml.Node) []pair {
	var raw []pair
	flattenMapping(deref(n), &raw, false, 0)
	out := make([]pair, 0, len(raw))
	index := map[string]int{}
	for _, p := range raw {
		k := ReadScalar(p.key)
		id := k.Kind.String() + "\x00" + k.Text
		switch k.Kind {
		case KindInt: // 0x1 and 1 are one key to Python
			id = k.Kind.String() + "\x00" + k.Int.String()
		case KindBool:
			id = k.Kind.String() + "\x00" + strconv.FormatBool(k.Bool)
		}
		if i, ok := index[id]; ok {
			if !p.merged && !out[i].merged {
				c.warn(out[i].key, "%s%s is given again on line %d; the later value wins, as in the agent's YAML reader", where, k.Text, p.key.Line)
			}
			out[i].value = p.value
			continue
		}
		index[id] = len(out)
		out = append(out, p)
	}
	return out
}

// maxMergeDepth bounds nested merge keys.
const maxMergeDepth = 16

// flattenMapping is PyYAML's SafeConstructor.flatten_mapping: the mappings a
// `<<` key names come first, the first of a list of them winning over the
// later ones, and the mapping's own keys after them, so that they win.
func flattenMapping(n *yaml.Node, out *[]pair, merged bool, depth int) {
	if n == nil || n.Kind != yaml.MappingNode || depth > maxMergeDepth {
		return
	}
	var own []pair
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
			v = deref(v)
			switch v.Kind {
			case yaml.MappingNode:
				flattenMapping(v, out, true, depth+1)
			case yaml.SequenceNode:
				for j := len(v.Content) - 1; j >= 0; j-- {
					flattenMapping(deref(v.Content[j]), out, true, depth+1)
				}
			}
			continue
		}
		own = append(own, pair{k, v, merged})
	}
	*out = append(*out, own...)
}
