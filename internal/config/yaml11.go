package config

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/noora-hooks/noora-hooks/internal/lazy"
	"gopkg.in/yaml.v3"
)

// config.yaml is also the Noora agent's config, which it reads with PyYAML's
// SafeLoader: YAML 1.1. yaml.v3 resolves plain scalars by YAML 1.2, where
// `yes` is a string and `0o17` an integer. Every typed key is therefore read
// through ReadScalar, which resolves a scalar exactly as PyYAML does, so that
// one file means one thing to both programs.

// ScalarKind is the Python type PyYAML's SafeLoader builds for a node.
type ScalarKind int

const (
	// KindCollection is a mapping or a sequence: not a scalar at all.
	KindCollection ScalarKind = iota
	KindNull
	KindBool
	KindInt
	KindFloat
	KindString
	// KindTimestamp is a date or a datetime (2024-01-02).
	KindTimestamp
	// KindUnloadable is a scalar PyYAML refuses: it fails to load the whole
	// file (`=`, `<<` as a value, `0b_`, `2024-13-01`, an unknown tag).
	KindUnloadable
)

var kindNames = [...]string{"a mapping or a list", "null", "a boolean", "an integer", "a float", "a string", "a date", "a value PyYAML cannot load"}

func (k ScalarKind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// Scalar is a YAML node as PyYAML reads it.
type Scalar struct {
	Kind ScalarKind
	// Text is the scalar as written (the string itself for KindString).
	Text  string
	Bool  bool
	Int   *big.Int // KindInt: Python ints have no size limit
	Float float64
	// Why says what PyYAML objects to, for KindUnloadable.
	Why string
}

// Describe names the value for a warning: `an integer 12345`.
func (s Scalar) Describe() string {
	switch s.Kind {
	case KindCollection, KindNull:
		return s.Kind.String()
	case KindUnloadable:
		return fmt.Sprintf("%s %q (%s)", s.Kind, s.Text, s.Why)
	}
	return fmt.Sprintf("%s %q", s.Kind, s.Text)
}

// maxAliasDepth bounds how many aliases ReadScalar follows: yaml.v3 already
// rejects alias cycles, this only keeps the loop finite whatever it hands us.
const maxAliasDepth = 64

// deref follows aliases to the node they name.
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && n.Alias != nil && i < maxAliasDepth; i++ {
		n = n.Alias
	}
	return n
}

// ReadScalar reads n as PyYAML's SafeLoader would: quoted and block scalars
// are strings; a plain scalar is resolved by YAML 1.1's implicit rules; an
// explicit standard tag (!!str, !!int, ...) is constructed as that type.
func ReadScalar(n *yaml.Node) Scalar {
	n = deref(n)
	if n == nil || n.Kind != yaml.ScalarNode {
		return Scalar{Kind: KindCollection}
	}
	if n.Style&yaml.TaggedStyle != 0 {
		return construct(n.Tag, n.Value)
	}
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return Scalar{Kind: KindString, Text: n.Value}
	}
	return ResolvePlain(n.Value)
}

// PyYAML's implicit resolvers (yaml/resolver.py), in its order. They are
// anchored; none of them matches what another one does.
var (
	yamlBool  = lazy.Regexp(`^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$`)
	yamlFloat = lazy.Regexp(`^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?` +
		`|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?` +
		`|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*` +
		`|[-+]?\.(?:inf|Inf|INF)` +
		`|\.(?:nan|NaN|NAN))$`)
	yamlInt = lazy.Regexp(`^(?:[-+]?0b[0-1_]+` +
		`|[-+]?0[0-7_]+` +
		`|[-+]?(?:0|[1-9][0-9_]*)` +
		`|[-+]?0x[0-9a-fA-F_]+` +
		`|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$`)
	yamlNull      = lazy.Regexp(`^(?:~|null|Null|NULL|)$`)
	yamlTimestamp = lazy.Regexp(`^(?:([0-9]{4})-([0-9]{2})-([0-9]{2})` +
		`|([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?:[Tt]|[ \t]+)([0-9]{1,2}):([0-9]{2}):([0-9]{2})(?:\.[0-9]*)?` +
		`(?:[ \t]*(?:Z|[-+]([0-9]{1,2})(?::([0-9]{2}))?))?)$`)
)

// ResolvePlain resolves the text of a plain (unquoted, untagged) scalar as
// PyYAML's SafeLoader does.
func ResolvePlain(s string) Scalar {
	switch {
	case yamlBool().MatchString(s):
		return construct("!!bool", s)
	case yamlFloat().MatchString(s):
		return construct("!!float", s)
	case yamlInt().MatchString(s):
		return construct("!!int", s)
	case s == "<<":
		return unloadable(s, "could not determine a constructor for the tag 'tag:yaml.org,2002:merge'")
	case yamlNull().MatchString(s):
		return Scalar{Kind: KindNull, Text: s}
	case yamlTimestamp().MatchString(s):
		return construct("!!timestamp", s)
	case s == "=":
		return unloadable(s, "could not determine a constructor for the tag 'tag:yaml.org,2002:value'")
	}
	return Scalar{Kind: KindString, Text: s}
}

func unloadable(text, why string) Scalar {
	return Scalar{Kind: KindUnloadable, Text: text, Why: why}
}

// construct builds a scalar of an explicit or resolved tag as PyYAML's
// SafeConstructor does.
func construct(tag, s string) Scalar {
	switch tag {
	case "!!str", "!":
		return Scalar{Kind: KindString, Text: s}
	case "!!null":
		return Scalar{Kind: KindNull, Text: s}
	case "!!bool":
		switch strings.ToLower(s) {
		case "yes", "true", "on":
			return Scalar{Kind: KindBool, Text: s, Bool: true}
		case "no", "false", "off":
			return Scalar{Kind: KindBool, Text: s, Bool: false}
		}
		return unloadable(s, fmt.Sprintf("%q is not a YAML 1.1 boolean", s))
	case "!!int":
		i, err := constructInt(s)
		if err != nil {
			return unloadable(s, err.Error())
		}
		return Scalar{Kind: KindInt, Text: s, Int: i}
	case "!!float":
		f, err := constructFloat(s)
		if err != nil {
			return unloadable(s, err.Error())
		}
		return Scalar{Kind: KindFloat, Text: s, Float: f}
	case "!!timestamp":
		if err := checkTimestamp(s); err != nil {
			return unloadable(s, err.Error())
		}
		return Scalar{Kind: KindTimestamp, Text: s}
	}
	return unloadable(s, fmt.Sprintf("could not determine a constructor for the tag %q", tag))
}

// constructInt is SafeConstructor.construct_yaml_int: underscores dropped,
// then 0b binary, 0x hex, a leading 0 octal, a:b:c base 60, else decimal.
func constructInt(s string) (*big.Int, error) {
	v := strings.ReplaceAll(s, "_", "")
	neg := false
	if v != "" && (v[0] == '-' || v[0] == '+') {
		neg = v[0] == '-'
		v = v[1:]
	}
	var (
		i  = new(big.Int)
		ok bool
	)
	switch {
	case v == "":
		return nil, fmt.Errorf("invalid literal for int(): %q", s)
	case v == "0":
		ok = true
	case strings.HasPrefix(v, "0b"):
		_, ok = i.SetString(v[2:], 2)
	case strings.HasPrefix(v, "0x"):
		_, ok = i.SetString(v[2:], 16)
	case v[0] == '0':
		_, ok = i.SetString(v, 8)
	case strings.Contains(v, ":"):
		ok = true
		for _, part := range strings.Split(v, ":") {
			d, good := new(big.Int).SetString(part, 10)
			if !good {
				ok = false
				break
			}
			i.Mul(i, big.NewInt(60)).Add(i, d)
		}
	default:
		_, ok = i.SetString(v, 10)
	}
	if !ok {
		return nil, fmt.Errorf("invalid literal for int(): %q", s)
	}
	if neg {
		i.Neg(i)
	}
	return i, nil
}

// constructFloat is SafeConstructor.construct_yaml_float.
func constructFloat(s string) (float64, error) {
	v := strings.ToLower(strings.ReplaceAll(s, "_", ""))
	sign := 1.0
	if v != "" && (v[0] == '-' || v[0] == '+') {
		if v[0] == '-' {
			sign = -1
		}
		v = v[1:]
	}
	switch {
	case v == ".inf":
		return sign * math.Inf(1), nil
	case v == ".nan":
		return math.NaN(), nil
	case strings.Contains(v, ":"):
		total := 0.0
		for _, part := range strings.Split(v, ":") {
			d, err := pyFloat(part)
			if err != nil {
				return 0, err
			}
			total = total*60 + d
		}
		return sign * total, nil
	}
	f, err := pyFloat(v)
	return sign * f, err
}

// pyFloat is Python's float() of a string that has no underscores left: an
// overflow is infinity, not an error.
func pyFloat(s string) (float64, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !isRangeError(err) {
		return 0, fmt.Errorf("could not convert string to float: %q", s)
	}
	return f, nil
}

func isRangeError(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// checkTimestamp is what SafeConstructor.construct_yaml_timestamp refuses:
// a date or time out of range, which makes Python's datetime raise.
func checkTimestamp(s string) error {
	m := yamlTimestamp().FindStringSubmatch(s)
	if m == nil {
		return fmt.Errorf("%q is not a timestamp", s)
	}
	num := func(i int) int { n, _ := strconv.Atoi(m[i]); return n }
	y, mo, d := num(1), num(2), num(3)
	if m[1] == "" {
		y, mo, d = num(4), num(5), num(6)
	}
	switch {
	case y < 1:
		return fmt.Errorf("year %d is out of range", y)
	case mo < 1 || mo > 12:
		return fmt.Errorf("month must be in 1..12")
	case d < 1 || d > time.Date(y, time.Month(mo)+1, 0, 0, 0, 0, 0, time.UTC).Day():
		return fmt.Errorf("day is out of range for month")
	}
	if m[1] != "" {
		return nil
	}
	switch {
	case num(7) > 23:
		return fmt.Errorf("hour must be in 0..23")
	case num(8) > 59:
		return fmt.Errorf("minute must be in 0..59")
	case num(9) > 59:
		return fmt.Errorf("second must be in 0..59")
	case m[10] != "" && num(10)*60+num(11) >= 24*60:
		return fmt.Errorf("the offset must be strictly between -24 and 24 hours")
	}
	return nil
}
