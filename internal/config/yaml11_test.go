package config

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os/exec"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// Each expectation is what PyYAML 6's SafeLoader (yaml/resolver.py and
// yaml/constructor.py), which the agent's config loader uses, builds for
// `k: <text>`.
func TestResolvePlainAsPyYAML(t *testing.T) {
	tests := []struct {
		name, text string
		kind       ScalarKind
		value      string // the Python value's repr, roughly
	}{
		{"yes is a boolean", "yes", KindBool, "true"},
		{"Yes and YES are booleans", "YES", KindBool, "true"},
		{"on is a boolean", "on", KindBool, "true"},
		{"off is a boolean", "Off", KindBool, "false"},
		{"mixed-case yEs is a string", "yEs", KindString, "yEs"},
		{"y is a string, not a boolean, to PyYAML", "y", KindString, "y"},
		{"n is a string", "n", KindString, "n"},
		{"a hex integer is read", "0x1F", KindInt, "31"},
		{"a signed hex integer is read", "+0x1F", KindInt, "31"},
		{"a leading zero is octal", "017", KindInt, "15"},
		{"08 is not octal and so a string", "08", KindString, "08"},
		{"0o17 is YAML 1.2 and a string here", "0o17", KindString, "0o17"},
		{"underscores are dropped from an integer", "1_000", KindInt, "1000"},
		{"a binary integer is read", "0b101", KindInt, "5"},
		{"sexagesimal is base 60", "1:30", KindInt, "90"},
		{"sexagesimal may be negative", "-1:30", KindInt, "-90"},
		{"sexagesimal starting with 0 is a string", "0:30", KindString, "0:30"},
		{"0_ is zero", "0_", KindInt, "0"},
		{"a huge integer keeps its value", "123456789012345678901234567890", KindInt, "123456789012345678901234567890"},
		{"a float needs a dot", "1.9", KindFloat, "1.9"},
		{"1e0 has no dot and is a string", "1e0", KindString, "1e0"},
		{"an exponent needs its sign", "1.0e5", KindString, "1.0e5"},
		{"an exponent with a sign is a float", "1.0e+5", KindFloat, "100000"},
		{"a trailing dot is a float", "1.", KindFloat, "1"},
		{"a leading dot is a float", ".5", KindFloat, "0.5"},
		{"a signed leading dot is a string", "-.5", KindString, "-.5"},
		{"underscores are dropped from a float", "1_.5", KindFloat, "1.5"},
		{"sexagesimal floats are read", "1:30.5", KindFloat, "90.5"},
		{".inf is infinity", "-.inf", KindFloat, "-Inf"},
		{".NaN is not a number", ".NaN", KindFloat, "NaN"},
		{"a tilde is null", "~", KindNull, ""},
		{"nothing is null", "", KindNull, ""},
		{"a date is a date", "2024-01-02", KindTimestamp, ""},
		{"a datetime is a date", "2001-12-14t21:59:43.10-05:00", KindTimestamp, ""},
		{"an impossible date cannot be loaded", "2024-13-45", KindUnloadable, ""},
		{"0b_ cannot be loaded", "0b_", KindUnloadable, ""},
		{"0x_ cannot be loaded", "0x_", KindUnloadable, ""},
		{"= cannot be loaded", "=", KindUnloadable, ""},
		{"<< as a value cannot be loaded", "<<", KindUnloadable, ""},
		{"1.2.3 is a string", "1.2.3", KindString, "1.2.3"},
		{"_1 is a string", "_1", KindString, "_1"},
		{"a command line is a string", "~/hooks/x.sh --flag", KindString, "~/hooks/x.sh --flag"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ResolvePlain(tt.text)
			if s.Kind != tt.kind {
				t.Fatalf("ResolvePlain(%q) is %s, want %s (%s)", tt.text, s.Kind, tt.kind, s.Why)
			}
			if tt.value == "" {
				return
			}
			if got := valueOf(s); got != tt.value {
				t.Errorf("ResolvePlain(%q) = %s, want %s", tt.text, got, tt.value)
			}
		})
	}
}

func valueOf(s Scalar) string {
	switch s.Kind {
	case KindBool:
		if s.Bool {
			return "true"
		}
		return "false"
	case KindInt:
		return s.Int.String()
	case KindFloat:
		switch {
		case math.IsNaN(s.Float):
			return "NaN"
		case math.IsInf(s.Float, 1):
			return "+Inf"
		case math.IsInf(s.Float, -1):
			return "-Inf"
		}
		return strings.TrimSuffix(strings.TrimSuffix(jsonNumber(s.Float), ".0"), ".")
	case KindString:
		return s.Text
	}
	return ""
}

func jsonNumber(f float64) string {
	b, _ := json.Marshal(f)
	return string(b)
}

func TestReadScalarStyles(t *testing.T) {
	tests := []struct {
		name, doc string
		kind      ScalarKind
		value     string
	}{
		{"a quoted yes is a string", `k: "yes"`, KindString, "yes"},
		{"a single-quoted number is a string", `k: '5'`, KindString, "5"},
		{"a block scalar is a string", "k: |\n  5\n", KindString, "5\n"},
		{"an explicit !!str makes a number a string", `k: !!str 5`, KindString, "5"},
		{"an explicit !!int reads a quoted hex", `k: !!int "0x10"`, KindInt, "16"},
		{"an explicit !!bool reads yes", `k: !!bool "yes"`, KindBool, "true"},
		{"an explicit !!bool refuses 1", `k: !!bool "1"`, KindUnloadable, ""},
		{"an unknown tag cannot be loaded", `k: !foo x`, KindUnloadable, ""},
		{"an alias reads its anchor", "a: &x yes\nk: *x", KindBool, "true"},
		{"a list is no scalar", "k: [1]", KindCollection, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var doc yaml.Node
			if err := yaml.Unmarshal([]byte(tt.doc), &doc); err != nil {
				t.Fatal(err)
			}
			m := doc.Content[0]
			s := ReadScalar(m.Content[len(m.Content)-1])
			if s.Kind != tt.kind || (tt.value != "" && valueOf(s) != tt.value) {
				t.Errorf("got %s %q, want %s %q", s.Kind, valueOf(s), tt.kind, tt.value)
			}
		})
	}
}

func TestPyIntString(t *testing.T) {
	// Python's int(str), which the agent applies to a quoted timeout.
	tests := []struct {
		name, text, want string // want "" means a ValueError
	}{
		{"digits are read", "12", "12"},
		{"blanks around are stripped", " 12 \n", "12"},
		{"Python's blanks include U+001F", "\x1f12\x1c", "12"},
		{"a sign is read", "-3", "-3"},
		{"single underscores between digits are read", "1_000", "1000"},
		{"a double underscore is refused", "1__0", ""},
		{"a trailing underscore is refused", "10_", ""},
		{"hex is refused", "0x1", ""},
		{"an exponent is refused", "1e0", ""},
		{"a fraction is refused", "1.0", ""},
		{"Arabic-Indic digits are read", "١٢", "12"},
		{"fullwidth digits are read", "１２", "12"},
		{"nothing is refused", "  ", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			i, ok := pyIntString(tt.text)
			got := ""
			if ok {
				got = i.String()
			}
			if got != tt.want {
				t.Errorf("pyIntString(%q) = %q, want %q", tt.text, got, tt.want)
			}
		})
	}
}

// TestResolvePlainAgreesWithPyYAML compares every short plain scalar over
// the characters that decide YAML 1.1 numbers with PyYAML itself, when
// python3 and PyYAML are installed.
func TestResolvePlainAgreesWithPyYAML(t *testing.T) {
	if testing.Short() {
		t.Skip("differential run against PyYAML")
	}
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
	}
	alphabet := []string{"0", "1", "7", "9", "x", "b", "_", ":", ".", "e", "+", "-", "n", "y", "o", "a"}
	inputs := []string{"yes", "No", "ON", "off", "~", "null", "NULL", ".inf", "-.Inf", ".nan", "2024-02-30", "2024-02-29", "190:20:30", "1:60"}
	var gen func(prefix string, n int)
	gen = func(prefix string, n int) {
		if prefix != "" {
			inputs = append(inputs, prefix)
		}
		if n == 0 {
			return
		}
		for _, c := range alphabet {
			gen(prefix+c, n-1)
		}
	}
	gen("", 3)
	// Only what both parsers take as one plain scalar: "1:" or "- 1" are
	// other YAML structures, not values to resolve.
	plain := inputs[:0]
	for _, s := range inputs {
		var doc yaml.Node
		if yaml.Unmarshal([]byte("k: "+s), &doc) != nil || len(doc.Content) == 0 || len(doc.Content[0].Content) != 2 {
			continue
		}
		if v := doc.Content[0].Content[1]; v.Kind == yaml.ScalarNode && v.Style == 0 && v.Value == s {
			plain = append(plain, s)
		}
	}
	inputs = plain
	script := `
import json, math, sys, yaml
out = []
for s in json.load(sys.stdin):
    try:
        v = yaml.safe_load("k: " + s)["k"]
    except Exception:
        out.append(["unloadable", ""]); continue
    if v is None: out.append(["null", ""])
    elif isinstance(v, bool): out.append(["bool", "true" if v else "false"])
    elif isinstance(v, int): out.append(["int", str(v)])
    elif isinstance(v, float): out.append(["float", "NaN" if math.isnan(v) else repr(v)])
    elif isinstance(v, str): out.append(["str", v])
    else: out.append(["date", ""])
json.dump(out, sys.stdout)
`
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	in, _ := json.Marshal(inputs)
	cmd := exec.CommandContext(ctx, python, "-c", script)
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("PyYAML is not usable here: %v", err)
	}
	var want [][2]string
	if err := json.Unmarshal(out, &want); err != nil || len(want) != len(inputs) {
		t.Fatalf("python answered %d values for %d inputs (%v)", len(want), len(inputs), err)
	}
	t.Logf("%d plain scalars compared with PyYAML", len(inputs))
	kinds := map[string]ScalarKind{"unloadable": KindUnloadable, "null": KindNull, "bool": KindBool, "int": KindInt, "float": KindFloat, "str": KindString, "date": KindTimestamp}
	for i, s := range inputs {
		got := ResolvePlain(s)
		if got.Kind != kinds[want[i][0]] {
			t.Errorf("%q: got %s, PyYAML says %s", s, got.Kind, want[i][0])
			continue
		}
		switch got.Kind {
		case KindBool, KindInt, KindString:
			if v := valueOf(got); v != want[i][1] {
				t.Errorf("%q: got %s, PyYAML says %s", s, v, want[i][1])
			}
		case KindFloat:
			if v := pyRepr(got.Float); v != want[i][1] {
				t.Errorf("%q: got %s, PyYAML says %s", s, v, want[i][1])
			}
		}
	}
}

// pyRepr writes a float as Python's repr does, for the values the
// differential test meets.
func pyRepr(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case f == math.Trunc(f) && math.Abs(f) < 1e16:
		if f == 0 && math.Signbit(f) {
			return "-0.0"
		}
		return jsonNumber(f) + ".0"
	}
	return jsonNumber(f)
}
