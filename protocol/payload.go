package protocol

import (
	"encoding/json"

	"github.com/tidwall/gjson"
)

// TelemetrySchemaVersion is added to every event's kwargs when the caller did not
// set it, as the Noora plugin manager does (SPEC §4).
const TelemetrySchemaVersion = "noora.observer.v1"

// Kwargs are the keyword arguments of one firing of an event, in the caller's order.
type Kwargs = Object

// WithTelemetry returns kw with telemetry_schema_version appended when absent.
func WithTelemetry(kw Kwargs) Kwargs {
	if _, ok := kw.Get("telemetry_schema_version"); ok {
		return kw
	}
	return kw.Clone().With("telemetry_schema_version", String(TelemetrySchemaVersion))
}

// ToolName returns kwargs.tool_name when it is a string.
func ToolName(kw Kwargs) (string, bool) { return kw.GetString("tool_name") }

// ToolArgs returns kwargs.args when it is a JSON object.
func ToolArgs(kw Kwargs) (Object, bool) {
	raw, ok := kw.Get("args")
	if !ok {
		return nil, false
	}
	r := gjson.ParseBytes(raw)
	if !r.IsObject() {
		return nil, false
	}
	return objectOf(r), true
}

// Payload builds the JSON object a shell hook reads on stdin (SPEC §4):
// hook_event_name, tool_name, tool_input, session_id, cwd and extra, where extra
// holds every other kwarg in the caller's order. Nothing the caller sent is
// dropped: an args that is not an object stays in extra, a session_id that
// does not stand as the session stays in extra, and parent_session_id stays
// in extra even when it stands in for session_id.
func Payload(event string, kw Kwargs, cwd string) Object {
	null := json.RawMessage("null")
	toolName, toolInput := null, null
	sessionID, fromSession := sessionID(kw)
	extra := make(Object, 0, len(kw))
	for _, f := range kw {
		switch f.Key {
		case "tool_name":
			toolName = f.Value
			continue
		case "args":
			if gjson.ParseBytes(f.Value).IsObject() {
				toolInput = f.Value
				continue
			}
		case "session_id":
			if fromSession {
				continue
			}
		}
		extra = append(extra, f)
	}
	if extra == nil {
		extra = Object{}
	}
	// Every value is already compact JSON (ParseObject), so the object's own
	// encoding is final: no need for Raw's re-validation of a payload that
	// may be megabytes.
	extraJSON, _ := extra.MarshalJSON()
	return Object{
		{Key: "hook_event_name", Value: String(event)},
		{Key: "tool_name", Value: toolName},
		{Key: "tool_input", Value: toolInput},
		{Key: "session_id", Value: sessionID},
		{Key: "cwd", Value: String(cwd)},
		{Key: "extra", Value: extraJSON},
	}
}

// sessionID is the payload's session_id as the agent computes it
// (agent/shell_hooks.py _payload_fields): `session_id or parent_session_id
// or ""` by Python truthiness, so a session_id of 0, false, "", [] or {}
// gives way to parent_session_id, and a falsy parent_session_id to "".
// fromSession reports whether kwargs.session_id itself was taken.
func sessionID(kw Kwargs) (id json.RawMessage, fromSession bool) {
	if raw, ok := kw.Get("session_id"); ok && pyTruthy(gjson.ParseBytes(raw)) {
		return raw, true
	}
	if raw, ok := kw.Get("parent_session_id"); ok && pyTruthy(gjson.ParseBytes(raw)) {
		return raw, false
	}
	return json.RawMessage(`""`), false
}
