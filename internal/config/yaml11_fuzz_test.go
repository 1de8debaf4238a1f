package config

import (
	"strconv"
	"testing"

	"gopkg.in/yaml.v3"
)

// FuzzResolvePlain: no plain scalar crashes the YAML 1.1 reader, what it
// returns is well-formed, and the values it reads come back the same when
// written canonically. The seed corpus is in testdata/fuzz/FuzzResolvePlain.
func FuzzResolvePlain(f *testing.F) {
	for _, s := range []string{"yes", "0x1F", "017", "1:30", "1.0e+5", "1e0", "-.inf", "2024-02-29", "0b_", "=", "~", "1_000", "12345"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		s := ResolvePlain(text)
		switch s.Kind {
		case KindBool:
			if back := ResolvePlain(strconv.FormatBool(s.Bool)); back.Kind != KindBool || back.Bool != s.Bool {
				t.Fatalf("%q: the boolean %v does not read back", text, s.Bool)
			}
		case KindInt:
			if s.Int == nil {
				t.Fatalf("%q: an integer without a value", text)
			}
			if back := ResolvePlain(s.Int.String()); back.Kind != KindInt || back.Int.Cmp(s.Int) != 0 {
				t.Fatalf("%q: the integer %s reads back as %s %v", text, s.Int, back.Kind, back.Int)
			}
			// Python's int() of the decimal text is the same number.
			if i, ok := pyIntString(s.Int.String()); !ok || i.Cmp(s.Int) != 0 {
				t.Fatalf("%q: int(%q) disagrees", text, s.Int.String())
			}
		case KindUnloadable:
			if s.Why == "" {
				t.Fatalf("%q: unloadable without a reason", text)
			}
		case KindString:
			if s.Text != text {
				t.Fatalf("%q: the string changed to %q", text, s.Text)
			}
		}
		// The node reader agrees with the plain reader for what yaml.v3
		// parses as this one plain scalar.
		var doc yaml.Node
		if yaml.Unmarshal([]byte("k: "+text), &doc) != nil || len(doc.Content) == 0 || len(doc.Content[0].Content) != 2 {
			return
		}
		if n := doc.Content[0].Content[1]; n.Kind == yaml.ScalarNode && n.Style == 0 && n.Value == text {
			if got := ReadScalar(n); got.Kind != s.Kind {
				t.Fatalf("%q: ReadScalar says %s, ResolvePlain %s", text, got.Kind, s.Kind)
			}
		}
	})
}
