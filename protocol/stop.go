package protocol

import "strings"

// DefaultStopReason is the stop_reason of a hook that asked to stop the
// agent without saying why.
const DefaultStopReason = "Stopped by a hook."

// stopFields is `"stop": true, "stop_reason": "..."` when any hook asked to
// stop the agent (SPEC §8): the first such hook in declaration order gives
// the reason. Any event can carry it, whatever else its answer says.
func stopFields(answers []Answer) Object {
	for _, a := range answers {
		if !a.Stop {
			continue
		}
		reason := a.StopReason
		if strings.TrimSpace(reason) == "" {
			reason = DefaultStopReason
		}
		return Object{
			{Key: "stop", Value: Raw(true)},
			{Key: "stop_reason", Value: String(reason)},
		}
	}
	return nil
}
