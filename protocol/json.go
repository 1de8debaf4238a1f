package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/tidwall/gjson"
)

// Field is one member of a JSON object, its value kept as the exact JSON text.
type Field struct {
	Key   string
	Value json.RawMessage
}

// Object is a JSON object whose members keep their order. Hook authors read
// payloads by eye and diff them; Go maps would shuffle them on every run.
type Object []Field

// ErrNotObject is returned when a JSON text that must be an object is not one.
var ErrNotObject = errors.New("not a JSON object")

// ParseObject reads a JSON object, keeping member order. A key given twice keeps
// its first position and its last value, as Python's json module does.
// Values are compacted: a payload must stay one line (SPEC §4). JSON nesting
// deeper than MaxDepth is refused (ErrTooDeep).
func ParseObject(data []byte) (Object, error) {
	if err := CheckDepth(data); err != nil {
		return nil, err
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, data); err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	r := gjson.ParseBytes(compact.Bytes())
	if !r.IsObject() {
		return nil, fmt.Errorf("%w: got %s", ErrNotObject, KindOf(r))
	}
	return objectOf(r), nil
}

// objectOf converts an already validated gjson object.
func objectOf(r gjson.Result) Object {
	var obj Object
	r.ForEach(func(k, v gjson.Result) bool {
		obj = obj.With(k.String(), json.RawMessage(v.Raw))
		return true
	})
	return obj
}

// Get returns the value of key and whether it is present.
func (o Object) Get(key string) (json.RawMessage, bool) {
	for _, f := range o {
		if f.Key == key {
			return f.Value, true
		}
	}
	return nil, false
}

// GetString returns the member key when it is a JSON string.
func (o Object) GetString(key string) (string, bool) {
	raw, ok := o.Get(key)
	if !ok {
		return "", false
	}
	r := gjson.ParseBytes(raw)
	if r.Type != gjson.String {
		return "", false
	}
	return r.String(), true
}

// With returns o with key set to value: replaced in place when present,
// appended otherwise. o itself may be modified.
func (o Object) With(key string, value json.RawMessage) Object {
	for i := range o {
		if o[i].Key == key {
			o[i].Value = value
			return o
		}
	}
	return append(o, Field{Key: key, Value: value})
}

// Clone returns a copy of o that can be changed without touching o.
func (o Object) Clone() Object {
	if o == nil {
		return nil
	}
	return append(Object(nil), o...)
}

// MarshalJSON writes the members in order.
func (o Object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(String(f.Key))
		b.WriteByte(':')
		if len(f.Value) == 0 {
			b.WriteString("null")
		} else {
			b.Write(f.Value)
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// String encodes s as a JSON string, without HTML escaping: hook output is
// read by programs and people, never embedded in a web page.
func String(s string) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return bytes.TrimRight(b.Bytes(), "\n")
}

// Raw returns v encoded as JSON, for values built by our own code.
func Raw(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("protocol: encode %T: %v", v, err))
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

// KindOf names the JSON type of v for messages: "an array", "a string",
// "missing", and so on.
func KindOf(v gjson.Result) string {
	switch {
	case !v.Exists():
		return "missing"
	case v.IsArray():
		return "an array"
	case v.IsObject():
		return "an object"
	case v.Type == gjson.String:
		return "a string"
	case v.Type == gjson.Number:
		return "a number"
	case v.Type == gjson.True || v.Type == gjson.False:
		return "a boolean"
	case v.Type == gjson.Null:
		return "null"
	}
	return "something else"
}
