package wire

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		line    string
		wantErr string // substring; "" means it parses
		check   func(t *testing.T, m Message)
	}{
		{
			name: "A hello declares hooks and sections",
			line: `{"type":"hello","protocol":1,"hooks":[{"event":"pre_tool_call","callback":"guard"},"post_tool_call"],"sections":[{"id":"a.b","max_chars":10}],"warnings":["w"]}`,
			check: func(t *testing.T, m Message) {
				if m.Protocol != 1 || len(m.Hooks) != 2 || m.Hooks[0] != (HookDecl{"pre_tool_call", "guard"}) || m.Hooks[1].Event != "post_tool_call" {
					t.Errorf("hooks: %+v", m.Hooks)
				}
				if id, ok := m.Sections[0].IDString(); !ok || id != "a.b" || m.Sections[0].MaxChars.Int() != 10 {
					t.Errorf("sections: %+v", m.Sections)
				}
				if len(m.Warnings) != 1 {
					t.Errorf("warnings: %q", m.Warnings)
				}
			},
		},
		{
			name: "A hello of another version is read no further",
			line: `{"type":"hello","protocol":2,"hooks":"whatever"}`,
			check: func(t *testing.T, m Message) {
				if m.Protocol != 2 || m.Hooks != nil {
					t.Errorf("got %+v", m)
				}
			},
		},
		{
			name: "A result keeps its value",
			line: `{"type":"result","id":7,"value":{"action":"block"}}`,
			check: func(t *testing.T, m Message) {
				if m.ID != 7 || m.Value.Get("action").String() != "block" {
					t.Errorf("got %+v", m)
				}
			},
		},
		{
			name: "A result without a value is null",
			line: `{"type":"result","id":1}`,
			check: func(t *testing.T, m Message) {
				if m.Value.Type != gjson.Null {
					t.Errorf("value %v", m.Value.Type)
				}
			},
		},
		{
			name: "An error carries its message and where",
			line: `{"type":"error","id":3,"error":"ValueError: boom","where":"__init__.py:3 in f"}`,
			check: func(t *testing.T, m Message) {
				if m.ID != 3 || m.Error != "ValueError: boom" || m.Where != "__init__.py:3 in f" {
					t.Errorf("got %+v", m)
				}
			},
		},
		{
			name: "A fatal needs no id",
			line: `{"type":"fatal","error":"register() failed"}`,
			check: func(t *testing.T, m Message) {
				if m.Error != "register() failed" {
					t.Errorf("got %+v", m)
				}
			},
		},
		{
			name: "Unknown fields are ignored",
			line: `{"type":"result","id":1,"value":"x","later":true}`,
		},
		{name: "Garbage is refused", line: `not json`, wantErr: "not valid JSON"},
		{name: "An array is refused", line: `[1]`, wantErr: "must be a JSON object"},
		{name: "A message needs a type", line: `{"id":1}`, wantErr: `no string "type"`},
		{name: "An unknown type is refused", line: `{"type":"shout"}`, wantErr: `unknown message type "shout"`},
		{name: "A result needs an id", line: `{"type":"result","value":1}`, wantErr: `numeric "id"`},
		{name: "An id must be a positive whole number", line: `{"type":"result","id":1.5}`, wantErr: `whole number`},
		{name: "A zero id is refused", line: `{"type":"error","id":0}`, wantErr: `whole number`},
		{name: "A hello needs its version", line: `{"type":"hello"}`, wantErr: `"protocol"`},
		{name: "A fractional version is refused", line: `{"type":"hello","protocol":1.5}`, wantErr: `whole number`},
		{name: "Hooks must be an array", line: `{"type":"hello","protocol":1,"hooks":{}}`, wantErr: `"hooks" must be an array`},
		{name: "A hook needs an event", line: `{"type":"hello","protocol":1,"hooks":[{"callback":"x"}]}`, wantErr: `hook 1: has no string "event"`},
		{name: "A section must be an object", line: `{"type":"hello","protocol":1,"sections":["x"]}`, wantErr: `section 1 must be an object`},
		{name: "Too many hooks are refused", line: `{"type":"hello","protocol":1,"hooks":[` + strings.Repeat(`"a",`, MaxHooks) + `"a"]}`, wantErr: "over the limit"},
		{name: "A line over the limit is refused", line: `{"type":"result","id":1,"value":"` + strings.Repeat("x", MaxMessage) + `"}`, wantErr: "over the"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Parse([]byte(tt.line))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Parse: %v, want an error with %q", err, tt.wantErr)
				}
				if !errors.Is(err, ErrProtocol) {
					t.Errorf("the error does not wrap ErrProtocol: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if tt.check != nil {
				tt.check(t, m)
			}
		})
	}
}

func TestRequestsAreOneLineOfJSON(t *testing.T) {
	for name, line := range map[string][]byte{
		"invoke":  Invoke(5, "pre_tool_call", 1, json.RawMessage(`{"tool_name":"terminal","x":"a\nb"}`), "/tmp"),
		"section": Section(6, "a.b", nil),
	} {
		if strings.Count(string(line), "\n") != 1 || line[len(line)-1] != '\n' {
			t.Errorf("%s: not one line: %q", name, line)
		}
		if !gjson.ValidBytes(line) {
			t.Errorf("%s: not JSON: %s", name, line)
		}
	}
	inv := gjson.ParseBytes(Invoke(5, "pre_tool_call", 1, nil, "/w"))
	if inv.Get("id").Int() != 5 || inv.Get("hook").String() != "pre_tool_call" || inv.Get("callback").Int() != 1 || inv.Get("cwd").String() != "/w" || !inv.Get("kwargs").IsObject() {
		t.Errorf("invoke: %s", inv.Raw)
	}
}

func TestHelloRoundTrips(t *testing.T) {
	line := Hello([]HookDecl{{"pre_llm_call", "recall"}}, []json.RawMessage{json.RawMessage(`{"id":"x"}`)}, []string{"careful"})
	m, err := Parse(line)
	if err != nil {
		t.Fatal(err)
	}
	if m.Protocol != Version || len(m.Hooks) != 1 || m.Hooks[0].Callback != "recall" || len(m.Sections) != 1 || m.Warnings[0] != "careful" {
		t.Errorf("got %+v", m)
	}
}

// FuzzParse feeds hostile lines to the parser: it must never panic, every
// error must be a protocol violation, and what it accepts must be within the
// documented bounds.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		`{"type":"hello","protocol":1,"hooks":[{"event":"pre_tool_call","callback":"g"}],"sections":[{"id":"a","position":"after_memory","max_chars":4000}],"warnings":["w"]}`,
		`{"type":"hello","protocol":2}`,
		`{"type":"result","id":1,"value":null}`,
		`{"type":"result","id":9223372036854775807,"value":[1,{"a":"b"}]}`,
		`{"type":"error","id":2,"error":"boom","where":"x.py:1 in f"}`,
		`{"type":"fatal","error":"register() failed"}`,
		`{"type":"result","id":-1}`,
		`{"type":"hello","protocol":1e400}`,
		`{"type":"hello","protocol":1,"hooks":[1,2]}`,
		`{"type":"type","type":"result","id":1}`,
		"{\"type\":\"error\",\"id\":1,\"error\":\"\xff\xfe\"}",
		`[]`, `""`, `{`, ``,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		m, err := Parse(line)
		if err != nil {
			if !errors.Is(err, ErrProtocol) {
				t.Fatalf("an error that is not a protocol violation: %v", err)
			}
			return
		}
		switch m.Type {
		case TypeHello, TypeFatal:
		case TypeResult, TypeError:
			if m.ID < 1 {
				t.Fatalf("accepted id %d", m.ID)
			}
		default:
			t.Fatalf("accepted type %q", m.Type)
		}
		if len(m.Hooks) > MaxHooks || len(m.Sections) > MaxSections || len(m.Warnings) > MaxWarnings {
			t.Fatalf("over the declared bounds: %d hooks, %d sections, %d warnings", len(m.Hooks), len(m.Sections), len(m.Warnings))
		}
		if len(m.Error) > MaxText+len("…") || len(m.Where) > MaxName+len("…") {
			t.Fatalf("error text over its bound: %d", len(m.Error))
		}
	})
}
