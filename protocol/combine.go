package protocol

// Combined is the single answer of an event: what `exec` prints (SPEC §8).
type Combined struct {
	Event    string
	Answer   Object   // the members after "event", in print order
	Warnings []string // things the combination ignored, for stderr
}

// MarshalJSON writes {"event": ..., <answer members>}.
func (c Combined) MarshalJSON() ([]byte, error) {
	return c.Object().MarshalJSON()
}

// Object returns the answer as one ordered object, "event" first.
func (c Combined) Object() Object {
	return append(Object{{Key: "event", Value: String(c.Event)}}, c.Answer...)
}

// Combine folds the answers of every hook of one event, given in source order
// (SPEC §3: plugins, then shell hooks in config order), into one answer. It
// depends only on that order, never on which hook finished first. kw are the
// event's kwargs: modify answers are merged into a copy of kwargs.args.
func Combine(event string, kw Kwargs, answers []Answer) Combined {
	c := Combined{Event: event}
	switch event {
	case PreToolCall:
		c.Answer = combineToolCall(kw, answers)
	case PreLLMCall, PostToolCall:
		// post_tool_call: context a hook adds about the call that ran
		// (Claude's, Gemini's and Codex's additionalContext).
		c.Answer = combineContext(answers)
	case PreVerify:
		for _, a := range answers {
			if a.Kind == Continue && PyStrip(a.Message) != "" {
				c.Answer = Object{
					{Key: "action", Value: String("continue")},
					{Key: "message", Value: String(a.Message)},
				}
				break
			}
		}
	case PreGatewayDispatch:
		for _, a := range answers {
			if a.Kind == Fields {
				c.Answer = a.Fields.Clone()
				break
			}
		}
	case TransformToolResult, TransformTerminalOutput:
		// The first string wins, the empty string included.
		for _, a := range answers {
			if a.Kind == Replace {
				c.Answer = Object{{Key: "replace", Value: String(a.Text)}}
				break
			}
		}
	case TransformLLMOutput:
		for _, a := range answers {
			if a.Kind == Replace && a.Text != "" {
				c.Answer = Object{{Key: "replace", Value: String(a.Text)}}
				break
			}
		}
	case PreTranscription:
		c.Answer, c.Warnings = combineTranscription(answers)
	case TransformAPIErrorClassification:
		for _, a := range answers {
			if a.Kind == Fields {
				c.Answer = Object{{Key: "classification", Value: Raw(a.Fields)}}
				break
			}
		}
	}
	c.Answer = combineStop(event, c.Answer, answers)
	return c
}

func combineToolCall(kw Kwargs, answers []Answer) Object {
	var approve *Answer
	var merged Object
	modified := false
	for i, a := range answers {
		switch a.Kind {
		case Block:
			out := Object{
				{Key: "action", Value: String("block")},
				{Key: "message", Value: String(a.Message)},
			}
			if a.UserMessage != "" {
				out = append(out, Field{Key: "user_message", Value: String(a.UserMessage)})
			}
			return out
		case Approve:
			if approve == nil {
				approve = &answers[i]
			}
		}
		if a.Args != nil && (a.Kind == Modify || a.Kind == Approve) {
			if !modified {
				merged, _ = ToolArgs(kw)
				if merged == nil {
					merged = Object{}
				}
				modified = true
			}
			for _, f := range a.Args {
				merged = merged.With(f.Key, f.Value)
			}
		}
	}
	switch {
	case approve != nil:
		out := Object{{Key: "action", Value: String("approve")}}
		if approve.Message != "" {
			out = append(out, Field{Key: "message", Value: String(approve.Message)})
		}
		if approve.UserMessage != "" {
			out = append(out, Field{Key: "user_message", Value: String(approve.UserMessage)})
		}
		if approve.RuleKey != "" {
			out = append(out, Field{Key: "rule_key", Value: String(approve.RuleKey)})
		}
		if modified {
			out = append(out, Field{Key: "args", Value: Raw(merged)})
		}
		return out
	case modified:
		return Object{
			{Key: "action", Value: String("modify")},
			{Key: "args", Value: Raw(merged)},
		}
	}
	return nil
}

// transcriptionFields are the pre_transcription fields a hook may set, in the
// order the answer prints them.
var transcriptionFields = []string{"prompt", "language", "model"}

func combineTranscription(answers []Answer) (Object, []string) {
	set := map[string]string{}
	var warnings []string
	for _, a := range answers {
		if a.Kind != Fields {
			continue
		}
		for _, f := range a.Fields {
			switch f.Key {
			case "prompt", "language", "model":
				if s, ok := rawString(f.Value); ok {
					set[f.Key] = s
				}
			case "file_path":
				warnings = append(warnings, "pre_transcription: file_path is read-only; the change was ignored")
			}
		}
	}
	if len(set) == 0 {
		return nil, warnings
	}
	var out Object
	for _, k := range transcriptionFields {
		if s, ok := set[k]; ok {
			out = append(out, Field{Key: k, Value: String(s)})
		}
	}
	return Object{{Key: "set", Value: Raw(out)}}, warnings
}
