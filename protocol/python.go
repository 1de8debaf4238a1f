package protocol

import (
	"strconv"
	"strings"
	"unicode"

	"github.com/tidwall/gjson"
)

// The Noora agent reads hook output with Python: str.strip(), truthiness and
// json.loads. A hook must get the same answer here as there, so the few
// Python rules that decide an answer are written out below (SPEC
// "Differences from the agent's reader" lists what is still different).

// IsPySpace reports whether Python's str.isspace() is true for r: Go's
// unicode.IsSpace plus the four ASCII separators U+001C..U+001F, which Python
// counts as whitespace and Go does not.
func IsPySpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}

// PyStrip trims s as Python's str.strip() with no argument does.
func PyStrip(s string) string {
	return strings.TrimFunc(s, IsPySpace)
}

// pyTruthy is Python's bool() of the value json.loads gives for v: null,
// false, a zero number, "", [] and {} are false; a missing key (dict.get's
// None) is false too.
func pyTruthy(v gjson.Result) bool {
	switch v.Type {
	case gjson.Null, gjson.False:
		return false
	case gjson.True:
		return true
	case gjson.String:
		return v.Str != ""
	case gjson.Number:
		// json.loads gives an int for an integer literal and a float
		// otherwise; either is false only when it is zero (1e-400 is a
		// float that underflows to 0.0). ParseFloat's range error still
		// returns the rounded value.
		f, _ := strconv.ParseFloat(v.Raw, 64)
		return f != 0
	case gjson.JSON:
		nonEmpty := false
		v.ForEach(func(_, _ gjson.Result) bool {
			nonEmpty = true
			return false
		})
		return nonEmpty
	}
	return false
}

// pyOr is Python's `a or b or ...`: the first truthy value, else the last.
func pyOr(values ...gjson.Result) gjson.Result {
	for _, v := range values {
		if pyTruthy(v) {
			return v
		}
	}
	if len(values) == 0 {
		return gjson.Result{}
	}
	return values[len(values)-1]
}

// isString reports whether v is the JSON string want (Python's
// `data.get(key) == want`, which is false for every non-string).
func isString(v gjson.Result, want string) bool {
	return v.Type == gjson.String && v.Str == want
}
