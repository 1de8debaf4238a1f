package plugins

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestYAMLToAgentJSONReadsScalarsAsPyYAMLDoes(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"Booleans of YAML 1.1 are booleans", "a: yes\nb: Off\nc: TRUE\nd: no\n", `{"a":true,"b":false,"c":true,"d":false}`},
		{"y and n stay strings, as in PyYAML", "a: y\nb: n\n", `{"a":"y","b":"n"}`},
		{"Nulls are null", "a: ~\nb: null\nc:\n", `{"a":null,"b":null,"c":null}`},
		{"A leading zero is octal", "mode: 0755\n", `{"mode":493}`},
		{"Hex, binary, underscores and sexagesimal ints are read", "a: 0x1F\nb: 0b101\nc: 1_000\nd: 1:30\n", `{"a":31,"b":5,"c":1000,"d":90}`},
		{"YAML 1.2 octal stays a string", "a: 0o17\n", `{"a":"0o17"}`},
		{"A float needs a dot, so 1e5 is a string", "a: 1.5\nb: 1e5\nc: 2.\nd: 1.0e+3\n", `{"a":1.5,"b":"1e5","c":2.0,"d":1000.0}`},
		{"Infinity and NaN are written as Python's json reads them", "a: .inf\nb: -.Inf\nc: .nan\n", `{"a":Infinity,"b":-Infinity,"c":NaN}`},
		{"Quoted and explicitly tagged scalars are strings", "a: 'yes'\nb: \"12\"\nc: !!str on\n", `{"a":"yes","b":"12","c":"on"}`},
		{"Dates stay strings", "a: 2026-11-30\n", `{"a":"2026-11-30"}`},
		{"Merge keys fill in what the mapping does not say", "base: &b {x: 1, y: 2}\nm:\n  <<: *b\n  y: 3\n", `{"base":{"x":1,"y":2},"m":{"x":1,"y":3}}`},
		{"A list of merges lets the first one win", "a: &a {k: 1}\nb: &b {k: 2, j: 2}\nm:\n  <<: [*a, *b]\n", `{"a":{"k":1},"b":{"k":2,"j":2},"m":{"k":1,"j":2}}`},
		{"A repeated key keeps its last value", "a: 1\nb: 2\na: 3\n", `{"a":3,"b":2}`},
		{"Aliases are expanded", "x: &v [1, 2]\ny: *v\n", `{"x":[1,2],"y":[1,2]}`},
		{"An empty document is nothing", "", ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := YAMLToAgentJSON([]byte(tt.yaml))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestYAMLToAgentJSONRefusesAliasBombs(t *testing.T) {
	var b strings.Builder
	b.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 12; i++ {
		b.WriteString("a" + itoa(i) + ": &a" + itoa(i) + " [")
		for j := 0; j < 10; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString("*a" + itoa(i-1))
		}
		b.WriteString("]\n")
	}
	if _, err := YAMLToAgentJSON([]byte(b.String())); err == nil {
		t.Fatal("an alias bomb was expanded")
	}
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

func FuzzYAMLToAgentJSON(f *testing.F) {
	for _, s := range []string{
		"plugins:\n  entries:\n    p: {settings: {a: yes, b: 0755}}\n", "a: &x {b: 1}\nc: {<<: *x}\n", "- .inf\n- 1:2:3.5\n",
		"a: !!binary aGk=\n", "? [1, 2]\n: x\n", "a: 0b\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := YAMLToAgentJSON(data)
		if err != nil || len(out) == 0 {
			return
		}
		// Python's json module reads it: standard JSON plus NaN and Infinity.
		std := strings.NewReplacer("-Infinity", "0", "Infinity", "0", "NaN", "0").Replace(string(out))
		if !json.Valid([]byte(std)) {
			t.Fatalf("not JSON: %s", out)
		}
	})
}
