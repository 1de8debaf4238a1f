package protocol

import (
	"errors"
	"strings"
	"testing"
)

func nest(depth int) string {
	return strings.Repeat("[", depth) + strings.Repeat("]", depth)
}

func TestCheckDepth(t *testing.T) {
	for _, tc := range []struct {
		name string
		json string
		deep bool
	}{
		{"a flat object is fine", `{"a":1,"b":[1,2]}`, false},
		{"nesting exactly at the bound is fine", nest(MaxDepth), false},
		{"one level over the bound is too deep", nest(MaxDepth + 1), true},
		{"objects count like arrays", strings.Repeat(`{"a":`, MaxDepth+1) + "1" + strings.Repeat("}", MaxDepth+1), true},
		{"brackets inside strings do not count", `{"a":"` + strings.Repeat("[", 3*MaxDepth) + `"}`, false},
		{"an escaped quote does not end a string", `{"a":"\"` + strings.Repeat("[", 3*MaxDepth) + `"}`, false},
		{"siblings do not add up", strings.Repeat(nest(MaxDepth/2), 10), false},
		{"a 10,001-level bomb is too deep", `{"action":"modify","args":{"a":` + nest(10001) + `}}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckDepth([]byte(tc.json))
			if got := errors.Is(err, ErrTooDeep); got != tc.deep {
				t.Fatalf("CheckDepth: too deep = %v (%v), want %v", got, err, tc.deep)
			}
		})
	}
}

func TestDeepInputIsRefusedBeforeItReachesAnEncoder(t *testing.T) {
	bomb := []byte(`{"action":"modify","args":{"a":` + nest(10001) + `}}`)
	if _, _, err := Parse(bomb); !errors.Is(err, ErrTooDeep) {
		t.Fatalf("Parse of a depth bomb: %v, want ErrTooDeep", err)
	}
	if _, err := ParseObject(bomb); !errors.Is(err, ErrTooDeep) {
		t.Fatalf("ParseObject of a depth bomb: %v, want ErrTooDeep", err)
	}
	// At the bound, an answer read and combined still encodes (Raw panics
	// on JSON Go's encoder refuses).
	v, ok, err := Parse([]byte(`{"action":"modify","args":{"a":` + nest(MaxDepth-2) + `}}`))
	if err != nil || !ok {
		t.Fatalf("Parse at the bound: %v", err)
	}
	a := Read(PreToolCall, v)
	if a.Kind != Modify {
		t.Fatalf("Read at the bound: %v, want modify", a.Kind)
	}
	if _, err := a.MarshalJSON(); err != nil {
		t.Fatal(err)
	}
	_, _ = Combine(PreToolCall, Kwargs{{Key: "args", Value: []byte(`{}`)}}, []Answer{a}).MarshalJSON()
}
