package protocol

import "github.com/tidwall/gjson"

// Member reads the top-level key of a JSON object literally: gjson's path
// syntax (dots, stars, ...) in key means nothing. Hook answers and foreign
// payloads name their keys; they do not write paths.
func Member(v gjson.Result, key string) gjson.Result {
	return member(v, key)
}
