package outbound

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
	"unicode"

	"github.com/tidwall/gjson"

	"github.com/noora-hooks/noora-hooks/internal/config"
	"github.com/noora-hooks/noora-hooks/protocol"
)

// MaxBody bounds one delivery's body. Kwargs may be up to 64 MiB (a long
// conversation history); a webhook that large is almost surely a mistake, and
// the spool (1,000 deliveries by default) must not grow to many gigabytes.
// Bigger deliveries are dropped with a warning.
const MaxBody = 16 << 20

// maxMeta bounds the first line of a spool file: the delivery's metadata.
const maxMeta = 64 << 10

// TimestampLayout is the UTC `...Z` timestamp of the body (SPEC §7).
const TimestampLayout = "2006-01-02T15:04:05Z"

// Delivery is one event on its way to one target: exactly what the spool
// holds and what the sender posts. The body is signed once, when the event
// fires, so a retry sends the same bytes with the same delivery_id.
type Delivery struct {
	Target    string // the target's name
	URL       string
	Event     string
	ID        string // delivery_id: 32 hex digits
	Created   time.Time
	Timeout   time.Duration // per attempt
	Signature string        // "sha256=<hex>", or "" when unsigned
	UserAgent string
	Body      []byte
	// ContentType is "" for the JSON body of a webhook, or ContentProtobuf
	// for the spans noora-hooks exports to an OTLP collector (package traces).
	ContentType string
	// Headers are sent with the request before noora-hooks' own, which a
	// header of the same name cannot replace: the OTLP exporter's
	// OTEL_EXPORTER_OTLP_HEADERS (an API key, say), kept in the private
	// spool with the body they go with.
	Headers []Header
}

// Header is one request header of a delivery.
type Header struct {
	Name, Value string
}

// MaxHeaders bounds the headers of one delivery.
const MaxHeaders = 64

// CheckHeader reports what makes a header unfit for a request: a name that
// is not an HTTP token, a value with a control character.
func CheckHeader(h Header) error {
	if h.Name == "" || strings.IndexFunc(h.Name, func(r rune) bool { return r > '~' || !isTokenByte(byte(r)) }) >= 0 {
		return fmt.Errorf("header name %q is not an HTTP token", h.Name)
	}
	if strings.IndexFunc(h.Value, func(r rune) bool { return r < ' ' && r != '\t' || r == 0x7f }) >= 0 {
		return fmt.Errorf("the value of header %s holds a control character", h.Name)
	}
	return nil
}

// isTokenByte: RFC 9110's tchar.
func isTokenByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// ContentProtobuf is OTLP/HTTP's binary encoding.
const ContentProtobuf = "application/x-protobuf"

// NewDelivery builds the delivery of one event to one target (SPEC §7): the
// §4 payload plus delivery_id and timestamp, signed with secret when signed.
func NewDelivery(t config.OutboundTarget, event string, kw protocol.Kwargs, cwd, secret string, signed bool, version string, now time.Time) (Delivery, error) {
	id, err := NewID()
	if err != nil {
		return Delivery{}, err
	}
	body := protocol.Payload(event, kw, cwd)
	body = append(body,
		protocol.Field{Key: "delivery_id", Value: protocol.String(id)},
		protocol.Field{Key: "timestamp", Value: protocol.String(now.UTC().Format(TimestampLayout))},
	)
	b, _ := body.MarshalJSON()
	d := Delivery{
		Target: t.Name, URL: t.URL, Event: event, ID: id, Created: now,
		Timeout: t.Timeout, UserAgent: "noora-hooks/" + version, Body: b,
	}
	if signed {
		d.Signature = Sign(secret, b)
	}
	return d, nil
}

// NewID returns a random 32-hex-digit delivery id.
func NewID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("make delivery id: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// Sign returns the X-Noora-Signature-256 value of body: "sha256=" and the hex
// HMAC-SHA256 of the exact bytes, keyed with secret (GitHub's scheme).
func Sign(secret string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// Verify reports whether signature is body's signature under secret, in
// constant time. Receivers written in Go can copy it (docs/outbound.md).
func Verify(secret string, body []byte, signature string) bool {
	return hmac.Equal([]byte(Sign(secret, body)), []byte(signature))
}

// meta is the first line of a spool file. The body follows the newline
// byte for byte: it is never re-encoded, or its signature would not hold.
type meta struct {
	Version   int    `json:"v"`
	Target    string `json:"target"`
	URL       string `json:"url"`
	Event     string `json:"event"`
	ID        string `json:"delivery_id"`
	Created   string `json:"created"`
	TimeoutMS int64  `json:"timeout_ms"`
	Signature string `json:"signature,omitempty"`
	UserAgent string `json:"user_agent"`
	// ContentType: see Delivery; omitted for JSON.
	ContentType string `json:"content_type,omitempty"`
	// Headers: see Delivery, as [name, value] pairs.
	Headers [][2]string `json:"headers,omitempty"`
}

const formatVersion = 1

// Encode returns the spool file of d.
func (d Delivery) Encode() []byte {
	m, _ := json.Marshal(meta{
		Version: formatVersion, Target: d.Target, URL: d.URL, Event: d.Event, ID: d.ID,
		Created: d.Created.UTC().Format(time.RFC3339Nano), TimeoutMS: d.Timeout.Milliseconds(),
		Signature: d.Signature, UserAgent: d.UserAgent, ContentType: d.ContentType,
		Headers: pairs(d.Headers),
	})
	out := make([]byte, 0, len(m)+1+len(d.Body))
	out = append(out, m...)
	out = append(out, '\n')
	return append(out, d.Body...)
}

// ErrCorrupt marks a spool file that cannot be a delivery.
var ErrCorrupt = errors.New("corrupt spool file")

// Decode reads a spool file. Spool files are outside input (a crash, a full
// disk or a person may have left anything there): every field is checked, and
// a file that fails is ErrCorrupt, never a panic or a request to a bad URL.
func Decode(data []byte) (Delivery, error) {
	bad := func(format string, args ...any) (Delivery, error) {
		return Delivery{}, fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, args...)...)
	}
	line, body, ok := bytes.Cut(data, []byte("\n"))
	if !ok {
		return bad("no body (the file may have been cut short)")
	}
	if len(line) > maxMeta {
		return bad("metadata line over %d KiB", maxMeta>>10)
	}
	if len(body) > MaxBody {
		return bad("body over %d MiB", MaxBody>>20)
	}
	var m meta
	if err := json.Unmarshal(line, &m); err != nil {
		return bad("metadata: %v", err)
	}
	if m.Version != formatVersion {
		return bad("format version %d, want %d", m.Version, formatVersion)
	}
	if err := checkURL(m.URL); err != nil {
		return bad("%v", err)
	}
	if m.Event == "" || !printable(m.Event) || len(m.Event) > 200 {
		return bad("event %q is not a printable name", m.Event)
	}
	if !isHexID(m.ID) {
		return bad("delivery_id %q is not 32 hex digits", m.ID)
	}
	created, err := time.Parse(time.RFC3339Nano, m.Created)
	if err != nil {
		return bad("created: %v", err)
	}
	if m.Signature != "" {
		hexSig, ok := strings.CutPrefix(m.Signature, "sha256=")
		if _, err := hex.DecodeString(hexSig); !ok || err != nil || len(hexSig) != 64 {
			return bad("signature %q is not sha256=<64 hex digits>", m.Signature)
		}
	}
	if m.UserAgent == "" || !printable(m.UserAgent) || len(m.UserAgent) > 200 {
		return bad("user_agent %q is not printable", m.UserAgent)
	}
	if m.Target == "" || len(m.Target) > 4096 {
		return bad("target name is empty or over 4 KiB")
	}
	switch m.ContentType {
	case "":
		if !gjson.ValidBytes(body) || !gjson.ParseBytes(body).IsObject() {
			return bad("body is not a JSON object")
		}
	case ContentProtobuf:
	default:
		return bad("content_type %q is not one noora-hooks sends", m.ContentType)
	}
	if len(m.Headers) > MaxHeaders {
		return bad("%d headers, over %d", len(m.Headers), MaxHeaders)
	}
	var headers []Header
	for _, p := range m.Headers {
		h := Header{Name: p[0], Value: p[1]}
		if err := CheckHeader(h); err != nil {
			return bad("%v", err)
		}
		headers = append(headers, h)
	}
	timeout := time.Duration(m.TimeoutMS) * time.Millisecond
	timeout = min(max(timeout, config.MinOutboundTimeout), config.MaxOutboundTimeout)
	return Delivery{
		Target: m.Target, URL: m.URL, Event: m.Event, ID: m.ID, Created: created,
		Timeout: timeout, Signature: m.Signature, UserAgent: m.UserAgent, Body: body,
		ContentType: m.ContentType, Headers: headers,
	}, nil
}

func pairs(hs []Header) [][2]string {
	out := make([][2]string, len(hs))
	for i, h := range hs {
		out[i] = [2]string{h.Name, h.Value}
	}
	return out
}

func checkURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("url %q: %v", raw, err)
	}
	if s := strings.ToLower(u.Scheme); (s != "http" && s != "https") || u.Hostname() == "" {
		return fmt.Errorf("url %q is not an absolute http(s) url", raw)
	}
	return nil
}

func isHexID(s string) bool {
	if len(s) != 32 {
		return false
	}
	for _, r := range s {
		if !('0' <= r && r <= '9' || 'a' <= r && r <= 'f') {
			return false
		}
	}
	return true
}

// printable rejects control characters: these values become header values
// and log lines.
func printable(s string) bool {
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}
