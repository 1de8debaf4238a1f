package journal

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/noora-hooks/noora-hooks/internal/lazy"
	"github.com/noora-hooks/noora-hooks/protocol"
)

// Redacted replaces a value that looks like a secret.
const Redacted = "[redacted]"

// secretWords are the parts of a key that mark its value as a secret, once
// the key is lower-cased with - and . read as _. "max_tokens" is caught too,
// but only string, object and array values are redacted, and a token count
// is a number.
var secretWords = []string{
	"password", "passwd", "passphrase", "secret", "token", "api_key", "apikey",
	"access_key", "private_key", "authorization", "auth_header", "credential",
	"cookie", "signature", "session_key", "client_key",
}

// keySeparators are read as "_" in a key (SecretKey); one Replacer, built
// on its first use, serves every key.
var keySeparators = strings.NewReplacer("-", "_", ".", "_", " ", "_")

// SecretKey reports whether the value of a JSON key with this name is
// redacted.
func SecretKey(key string) bool {
	k := keySeparators.Replace(strings.ToLower(key))
	for _, w := range secretWords {
		if strings.Contains(k, w) {
			return true
		}
	}
	return k == "auth" || k == "key" || k == "pwd"
}

// Redact returns the JSON value raw with the value of every key that looks
// like a secret replaced by "[redacted]", at any depth, and every string
// run through RedactText. Numbers, booleans and null are kept. Text that is
// not valid JSON is returned as one redacted JSON string.
func Redact(raw []byte) []byte {
	if !gjson.ValidBytes(raw) {
		return protocol.String(RedactText(string(raw)))
	}
	var b bytes.Buffer
	redactValue(&b, gjson.ParseBytes(raw), 0)
	return b.Bytes()
}

// maxDepth bounds the recursion over hostile input; deeper values are kept
// as one redacted string of their text.
const maxDepth = 64

func redactValue(b *bytes.Buffer, v gjson.Result, depth int) {
	if depth > maxDepth {
		b.Write(protocol.String(RedactText(v.Raw)))
		return
	}
	switch {
	case v.IsObject():
		b.WriteByte('{')
		first := true
		v.ForEach(func(k, val gjson.Result) bool {
			if !first {
				b.WriteByte(',')
			}
			first = false
			b.Write(protocol.String(k.String()))
			b.WriteByte(':')
			if SecretKey(k.String()) && (val.Type == gjson.String || val.IsObject() || val.IsArray()) {
				b.Write(protocol.String(Redacted))
				return true
			}
			redactValue(b, val, depth+1)
			return true
		})
		b.WriteByte('}')
	case v.IsArray():
		b.WriteByte('[')
		for i, val := range v.Array() {
			if i > 0 {
				b.WriteByte(',')
			}
			redactValue(b, val, depth+1)
		}
		b.WriteByte(']')
	case v.Type == gjson.String:
		b.Write(protocol.String(RedactText(v.String())))
	default:
		var c bytes.Buffer
		if json.Compact(&c, []byte(v.Raw)) == nil {
			b.Write(c.Bytes())
		} else {
			b.WriteString("null")
		}
	}
}

// Secrets in free text: "Bearer <token>", key=value and key: value pairs
// whose key looks like a secret, and well-known token shapes (GitHub,
// Slack, OpenAI/Anthropic-style sk- keys, AWS access keys). They compile on
// first use (internal/lazy): most firings have no text that needs them.
var (
	bearerText = lazy.Regexp(`(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{8,}`)
	secretPair = lazy.Regexp(`(?i)([A-Za-z0-9_.-]*(?:password|passwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|credential)[A-Za-z0-9_.-]*)("?\s*[:=]\s*"?)([^\s"',;&]+)`)
	tokenShape = lazy.Regexp(`\b(gh[pousr]_[A-Za-z0-9]{20,}|xox[abposr]-[A-Za-z0-9-]{10,}|sk-[A-Za-z0-9_-]{16,}|AKIA[0-9A-Z]{16})\b`)
)

// triggers are what every match of those contains, lower-cased: text
// without any of them is returned as it is, without running a regexp.
var triggers = []string{"bearer", "basic", "pass", "secret", "token", "key", "credential", "gh", "xox", "sk-", "akia"}

// RedactText replaces what looks like a secret in free text (a hook's
// stderr, a warning) with "[redacted]".
func RedactText(s string) string {
	if s == "" || !mayHoldSecret(s) {
		return s
	}
	s = bearerText().ReplaceAllString(s, "$1 "+Redacted)
	s = secretPair().ReplaceAllString(s, "${1}${2}"+Redacted)
	return tokenShape().ReplaceAllString(s, Redacted)
}

func mayHoldSecret(s string) bool {
	lower := strings.ToLower(s)
	for _, t := range triggers {
		if strings.Contains(lower, t) {
			return true
		}
	}
	return false
}
