package dispatch

import "github.com/noora-hooks/noora-hooks/protocol"

// AnswerJSON is the answer of an event as `exec` prints it and `serve` sends
// it (SPEC §8, §12): one JSON object and a newline. With trace, "hooks" lists
// what every hook considered did. Both commands use this one encoding, so
// their bytes are identical.
func (r Report) AnswerJSON(trace bool) []byte {
	out := r.Combined.Object()
	if trace {
		results := r.Results
		if results == nil {
			results = []Result{}
		}
		out = append(out, protocol.Field{Key: "hooks", Value: protocol.Raw(results)})
	}
	b, _ := out.MarshalJSON()
	return append(b, '\n')
}
