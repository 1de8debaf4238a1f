package compat

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/noora-hooks/noora-hooks/internal/runner"

	"github.com/tidwall/gjson"

	"github.com/noora-hooks/noora-hooks/internal/config"
	"github.com/noora-hooks/noora-hooks/protocol"
)

func dialectHook(dialect, event, matcher string) config.ShellHook {
	h := config.ShellHook{Event: event, Command: "x", Dialect: dialect}
	if matcher != "" {
		h.Matcher = config.NewMatcher(matcher)
	}
	return h
}

// The events the issue and Gemini CLI 0.61's reference list, each either
// mapped to a Noora event or reported with a reason.
func TestGeminiEventsCoverTheReference(t *testing.T) {
	names := []string{"SessionStart", "BeforeAgent", "BeforeModel", "AfterModel", "BeforeToolSelection",
		"BeforeTool", "AfterTool", "AfterAgent", "PreCompress", "Notification", "SessionEnd"}
	for _, name := range names {
		ev, ok := LookupEvent(Gemini, name)
		switch {
		case !ok:
			t.Errorf("%s is missing", name)
		case ev.Noora == "" && ev.Missing == "":
			t.Errorf("%s has neither a Noora event nor a reason", name)
		case ev.Noora != "":
			if _, ok := protocol.Lookup(ev.Noora); !ok {
				t.Errorf("%s maps to %q, which Noora does not have", name, ev.Noora)
			}
		}
	}
	if len(Events(Gemini)) != len(names) {
		t.Errorf("%d events, want %d", len(Events(Gemini)), len(names))
	}
}

func TestGeminiToolsBothWays(t *testing.T) {
	tests := []struct {
		name, tool, args, gemini, input string
	}{
		{"terminal is run_shell_command, its workdir dir_path", "terminal", `{"command":"ls","workdir":"/p","background":true}`,
			"run_shell_command", `{"command":"ls","dir_path":"/p","is_background":true}`},
		{"read_file counts lines from 0 in Gemini", "read_file", `{"path":"a.go","offset":11,"limit":5}`,
			"read_file", `{"file_path":"a.go","offset":10,"limit":5}`},
		{"a replace patch is replace", "patch", `{"mode":"replace","path":"a","old_string":"x","new_string":"y","replace_all":true}`,
			"replace", `{"file_path":"a","old_string":"x","new_string":"y","allow_multiple":true}`},
		{"a file search is glob", "search_files", `{"target":"files","pattern":"*.go"}`, "glob", `{"pattern":"*.go"}`},
		{"a content search is grep_search", "search_files", `{"target":"content","pattern":"TODO","file_glob":"*.go"}`,
			"grep_search", `{"pattern":"TODO","include":"*.go"}`},
		{"web_extract's URLs are web_fetch's prompt", "web_extract", `{"urls":["https://a.example/x"]}`,
			"web_fetch", `{"prompt":"https://a.example/x"}`},
		{"an MCP tool keeps its name", "mcp_github_create_issue", `{"title":"t"}`, "mcp_github_create_issue", `{"title":"t"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args, _ := protocol.ParseObject([]byte(tt.args))
			name, input := GeminiTool(tt.tool, args)
			got, _ := input.MarshalJSON()
			if name != tt.gemini || string(got) != tt.input {
				t.Fatalf("to Gemini: %s %s, want %s %s", name, got, tt.gemini, tt.input)
			}
			back, backArgs := NooraGeminiTool(name, input)
			if back != tt.tool {
				t.Fatalf("back to Noora: %s, want %s", back, tt.tool)
			}
			for _, f := range args {
				if v, ok := backArgs.Get(f.Key); !ok || !sameJSON(v, f.Value) {
					t.Errorf("back to Noora: %s is %s, want %s", f.Key, v, f.Value)
				}
			}
		})
	}
}

func TestGeminiPayload(t *testing.T) {
	tests := []struct {
		name, event, kwargs, want string
	}{
		{"a terminal call is a run_shell_command BeforeTool", "pre_tool_call",
			`{"tool_name":"terminal","args":{"command":"rm -rf /"},"session_id":"s1"}`,
			`{"session_id":"s1","transcript_path":"","cwd":"/home/u/proj","hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"rm -rf /"}}`},
		{"a failed call's AfterTool response carries the error", "post_tool_call",
			`{"tool_name":"terminal","args":{"command":"false"},"result":"exit 1","status":"error","error_message":"failed","session_id":"s1"}`,
			`{"session_id":"s1","transcript_path":"","cwd":"/home/u/proj","hook_event_name":"AfterTool","tool_name":"run_shell_command","tool_input":{"command":"false"},"tool_response":{"llmContent":"exit 1","returnDisplay":"exit 1","error":{"message":"failed"}}}`},
		{"the verify gate is AfterAgent, a nudged turn has the stop hook active", "pre_verify",
			`{"session_id":"s1","attempt":1,"final_response":"Done."}`,
			`{"session_id":"s1","transcript_path":"","cwd":"/home/u/proj","hook_event_name":"AfterAgent","prompt":"","prompt_response":"Done.","stop_hook_active":true}`},
		{"the user's message is BeforeAgent's prompt", "pre_llm_call", `{"session_id":"s1","user_message":"fix it"}`,
			`{"session_id":"s1","transcript_path":"","cwd":"/home/u/proj","hook_event_name":"BeforeAgent","prompt":"fix it"}`},
		{"an approval request is a ToolPermission notification", "pre_approval_request", `{"session_id":"s1","command":"rm -rf build"}`,
			`{"session_id":"s1","transcript_path":"","cwd":"/home/u/proj","hook_event_name":"Notification","notification_type":"ToolPermission","message":"Tool Confirm Shell Command requires execution","details":{"type":"exec","title":"Confirm Shell Command","command":"rm -rf build","rootCommand":"rm"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			call := testCall(t, tt.event, tt.kwargs)
			h := dialectHook(Gemini, tt.event, "")
			if ok, problem := geminiDialect.Applies(h, call); !ok {
				t.Fatalf("does not apply: %s", problem)
			}
			stdin := geminiDialect.Stdin(h, call)
			ts := gjson.GetBytes(stdin, "timestamp").String()
			if !strings.HasSuffix(ts, "Z") || len(ts) != len("2026-11-30T11:57:05.489Z") {
				t.Errorf("timestamp %q is not Gemini's ISO form", ts)
			}
			obj, _ := protocol.ParseObject(stdin)
			var kept protocol.Object
			for _, f := range obj {
				if f.Key != "timestamp" {
					kept = append(kept, f)
				}
			}
			got, _ := kept.MarshalJSON()
			if string(got) != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestGeminiApplies(t *testing.T) {
	tests := []struct {
		name, event, kwargs, matcher string
		want                         bool
	}{
		{"a tool matcher is a regular expression that may match anywhere", "pre_tool_call", `{"tool_name":"terminal"}`, "shell", true},
		{"a tool matcher names Gemini's tools", "pre_tool_call", `{"tool_name":"write_file"}`, "write_file|replace", true},
		{"a tool matcher that does not match skips the hook", "pre_tool_call", `{"tool_name":"read_file"}`, "write_file|replace", false},
		{"a lifecycle matcher is compared exactly", "on_session_start", `{"source":"startup"}`, "start", false},
		{"a lifecycle matcher equal to the source matches", "on_session_start", `{"source":"resume"}`, "resume", true},
		{"* matches everything", "on_session_end", `{"reason":"exit"}`, "*", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok, problem := geminiDialect.Applies(dialectHook(Gemini, tt.event, tt.matcher), testCall(t, tt.event, tt.kwargs))
			if ok != tt.want || problem != "" {
				t.Errorf("got %v %q, want %v", ok, problem, tt.want)
			}
		})
	}
}

func TestGeminiEnvIsWhatGeminiSets(t *testing.T) {
	call := testCall(t, "pre_tool_call", `{"session_id":"s9"}`)
	got := strings.Join(geminiDialect.Env(dialectHook(Gemini, "pre_tool_call", ""), call), " ")
	want := "GEMINI_PROJECT_DIR=/home/u/proj GEMINI_CWD=/home/u/proj GEMINI_SESSION_ID=s9 CLAUDE_PROJECT_DIR=/home/u/proj"
	if got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestGeminiRead(t *testing.T) {
	type want struct {
		kind    protocol.Kind
		message string
		args    string
		stop    string
		failed  bool
		warns   int
	}
	tests := []struct {
		name, event, kwargs string
		code                int
		stdout, stderr      string
		want                want
	}{
		{"deny blocks with its reason", "pre_tool_call", `{"tool_name":"terminal"}`, 0, `{"decision":"deny","reason":"no rm"}`, "",
			want{kind: protocol.Block, message: "no rm"}},
		{"block is an alias of deny", "pre_tool_call", `{}`, 0, `{"decision":"block","reason":"no"}`, "",
			want{kind: protocol.Block, message: "no"}},
		{"exit 2 blocks with stderr", "pre_tool_call", `{}`, 2, "", "not here\n",
			want{kind: protocol.Block, message: "not here"}},
		{"any exit but 0 and 1 blocks; stdout wins over stderr", "pre_tool_call", `{}`, 3, "from stdout", "from stderr",
			want{kind: protocol.Block, message: "from stdout"}},
		{"a silent exit 2 blocks nothing", "pre_tool_call", `{}`, 2, "", "",
			want{failed: true, warns: 1}},
		{"exit 2 with an allow decision blocks nothing", "pre_tool_call", `{}`, 2, `{"decision":"allow"}`, "",
			want{}},
		{"exit 1 is a warning, not a block", "pre_tool_call", `{}`, 1, "", "oops",
			want{failed: true}},
		{"plain text on exit 0 is only shown to the user", "pre_tool_call", `{}`, 0, "hello", "",
			want{}},
		{"stderr is read when stdout is empty", "pre_tool_call", `{}`, 0, "", `{"decision":"deny","reason":"via stderr"}`,
			want{kind: protocol.Block, message: "via stderr"}},
		{"a JSON string holding JSON is read", "pre_tool_call", `{}`, 0, `"{\"decision\":\"deny\",\"reason\":\"twice\"}"`, "",
			want{kind: protocol.Block, message: "twice"}},
		{"tool_input rewrites, in Noora's keys", "pre_tool_call", `{"tool_name":"write_file","args":{"path":"a","content":"x"}}`, 0,
			`{"hookSpecificOutput":{"tool_input":{"file_path":"b","content":"x"}}}`, "",
			want{kind: protocol.Modify, args: `{"path":"b","content":"x"}`}},
		{"ask asks Noora's approval", "pre_tool_call", `{"tool_name":"terminal"}`, 0, `{"decision":"ask","reason":"sure?"}`, "",
			want{kind: protocol.Approve, message: "sure?"}},
		{"continue: false before a tool stops and blocks", "pre_tool_call", `{}`, 0, `{"continue":false,"stopReason":"halt"}`, "",
			want{kind: protocol.Block, message: "halt", stop: "halt"}},
		{"AfterTool context is post-tool context", "post_tool_call", `{"tool_name":"terminal"}`, 0,
			`{"hookSpecificOutput":{"additionalContext":"lint found 2 issues"}}`, "",
			want{kind: protocol.Context}},
		{"AfterTool deny has no Noora counterpart", "post_tool_call", `{}`, 0, `{"decision":"deny","reason":"secret"}`, "",
			want{warns: 1}},
		{"BeforeAgent context is prompt context", "pre_llm_call", `{}`, 0,
			`{"hookSpecificOutput":{"additionalContext":"branch main"}}`, "",
			want{kind: protocol.Context}},
		{"AfterAgent deny keeps the agent going", "pre_verify", `{}`, 0, `{"decision":"deny","reason":"run the tests"}`, "",
			want{kind: protocol.Continue, message: "run the tests"}},
		{"exit 2 at AfterAgent keeps the agent going with stderr", "pre_verify", `{}`, 2, "", "lint first",
			want{kind: protocol.Continue, message: "lint first"}},
		{"continue: false at BeforeAgent stops", "pre_llm_call", `{}`, 0, `{"continue":false,"reason":"quota"}`, "",
			want{stop: "quota"}},
		{"flow control on SessionEnd is ignored, as Gemini does", "on_session_end", `{}`, 0, `{"continue":false,"decision":"deny"}`, "",
			want{}},
		{"context at SessionStart goes nowhere, with a warning", "on_session_start", `{}`, 0,
			`{"hookSpecificOutput":{"additionalContext":"x"}}`, "", want{warns: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			call := testCall(t, tt.event, tt.kwargs)
			r := geminiDialect.Read(dialectHook(Gemini, tt.event, ""), call,
				runner.Outcome{Code: tt.code, Stdout: []byte(tt.stdout), Stderr: []byte(tt.stderr)})
			a := r.Answer
			if a.Kind != tt.want.kind || tt.want.message != "" && a.Message != tt.want.message {
				t.Errorf("answer %+v, want %v %q", a, tt.want.kind, tt.want.message)
			}
			if tt.want.args != "" {
				got, _ := a.Args.MarshalJSON()
				if string(got) != tt.want.args {
					t.Errorf("args %s, want %s", got, tt.want.args)
				}
			}
			if a.Stop != (tt.want.stop != "") || a.StopReason != tt.want.stop {
				t.Errorf("stop %v %q, want %q", a.Stop, a.StopReason, tt.want.stop)
			}
			if r.Failed != tt.want.failed || len(r.Warnings) != tt.want.warns {
				t.Errorf("failed %v warnings %q, want %v and %d", r.Failed, r.Warnings, tt.want.failed, tt.want.warns)
			}
		})
	}
}

// The payloads Gemini CLI 0.61 really sent (testdata/gemini, recorded by
// the shared harness) decode to the Noora events and kwargs they stand for.
func TestDecodeGeminiRecordedPayloads(t *testing.T) {
	want := map[string]string{
		"SessionStart.json":        `on_session_start source=startup`,
		"BeforeAgent.json":         `pre_llm_call user_message=run the command`,
		"BeforeModel.json":         `pre_api_request model=gemini-3.8-flash`,
		"BeforeTool.json":          `pre_tool_call tool_name=terminal args.command=echo hello-from-fake-model args.description=test`,
		"AfterTool.json":           `post_tool_call tool_name=terminal status=success`,
		"AfterAgent.json":          `pre_verify final_response=done attempt=0`,
		"Notification.json":        `pre_approval_request command=echo hello-from-fake-model notification_type=ToolPermission`,
		"SessionEnd.json":          `on_session_end reason=exit`,
		"AfterModel.json":          ``,
		"BeforeToolSelection.json": ``,
		"PreCompress.json":         ``,
	}
	checkRecorded(t, Gemini, "gemini", want)
}

func checkRecorded(t *testing.T, dialect, dir string, want map[string]string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join("testdata", dir, "*.json"))
	if len(files) != len(want) {
		t.Errorf("%d recorded payloads, %d expectations", len(files), len(want))
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			in, err := Decode(dialect, data)
			if err != nil {
				t.Fatal(err)
			}
			exp, ok := want[filepath.Base(file)]
			if !ok {
				t.Fatalf("no expectation")
			}
			fields := strings.Fields(exp)
			if exp == "" {
				if in.NooraEvent() != "" || in.Unmapped() == "" {
					t.Fatalf("maps to %q, want no counterpart, reported", in.NooraEvent())
				}
				return
			}
			if in.NooraEvent() != fields[0] {
				t.Fatalf("event %q, want %q", in.NooraEvent(), fields[0])
			}
			kw, _ := in.Kwargs.MarshalJSON()
			// key=value pairs; a value runs to the next key=.
			rest := strings.TrimPrefix(exp, fields[0])
			for _, pair := range splitPairs(rest) {
				k, v, _ := strings.Cut(pair, "=")
				if got := gjson.GetBytes(kw, k).String(); got != v {
					t.Errorf("%s = %q, want %q (kwargs %s)", k, got, v, kw)
				}
			}
		})
	}
}

// splitPairs splits " a=x y b=z" into "a=x y", "b=z".
func splitPairs(s string) []string {
	var out []string
	for _, w := range strings.Fields(s) {
		if strings.Contains(w, "=") || len(out) == 0 {
			out = append(out, w)
		} else {
			out[len(out)-1] += " " + w
		}
	}
	return out
}

func TestEncodeGemini(t *testing.T) {
	tests := []struct {
		name, payload, answer, want string
		warns                       int
	}{
		{"a block is decision deny", `{"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"rm -rf /"}}`,
			`{"action":"block","message":"no"}`, `{"decision":"deny","reason":"no"}`, 0},
		{"a rewrite hands Gemini every argument, in its keys", `{"hook_event_name":"BeforeTool","tool_name":"write_file","tool_input":{"file_path":"a","content":"x"}}`,
			`{"action":"modify","args":{"path":"b","content":"x"}}`,
			`{"hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":{"file_path":"b","content":"x"}}}`, 0},
		{"an approval is decision ask", `{"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"git push"}}`,
			`{"action":"approve","message":"pushing"}`, `{"decision":"ask","reason":"pushing"}`, 0},
		{"no answer is an empty object, never allow", `{"hook_event_name":"BeforeTool","tool_name":"glob","tool_input":{}}`,
			``, `{}`, 0},
		{"prompt context is BeforeAgent's additionalContext", `{"hook_event_name":"BeforeAgent","prompt":"hi"}`,
			`{"context":"branch main"}`, `{"hookSpecificOutput":{"hookEventName":"BeforeAgent","additionalContext":"branch main"}}`, 0},
		{"post-tool context is AfterTool's additionalContext", `{"hook_event_name":"AfterTool","tool_name":"run_shell_command","tool_input":{},"tool_response":{"llmContent":"x"}}`,
			`{"context":"2 lint issues"}`, `{"hookSpecificOutput":{"hookEventName":"AfterTool","additionalContext":"2 lint issues"}}`, 0},
		{"continue at the verify gate is AfterAgent's deny", `{"hook_event_name":"AfterAgent","prompt":"p","prompt_response":"r","stop_hook_active":false}`,
			`{"action":"continue","message":"run the tests"}`, `{"decision":"deny","reason":"run the tests"}`, 0},
		{"a stop is continue: false, with the block", `{"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"x"}}`,
			`{"action":"block","message":"m","stop":true,"stop_reason":"halt"}`, `{"decision":"deny","reason":"m","continue":false,"stopReason":"halt"}`, 0},
		{"a stop on SessionEnd cannot be said, with a warning", `{"hook_event_name":"SessionEnd","reason":"exit"}`,
			`{"stop":true,"stop_reason":"halt"}`, `{}`, 1},
		{"an event Noora lacks answers {} with a warning", `{"hook_event_name":"PreCompress","trigger":"auto"}`, ``, `{}`, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := Decode(Gemini, []byte(tt.payload))
			if err != nil {
				t.Fatal(err)
			}
			c := protocol.Combined{Event: in.NooraEvent()}
			if tt.answer != "" {
				c.Answer, _ = protocol.ParseObject([]byte(tt.answer))
			}
			out := Encode(in, c)
			if got := strings.TrimSpace(string(out.Stdout)); got != tt.want {
				t.Errorf("stdout\n got %s\nwant %s", got, tt.want)
			}
			if len(out.Warnings) != tt.warns {
				t.Errorf("warnings %q, want %d", out.Warnings, tt.warns)
			}
		})
	}
}
