package compat

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/noora-hooks/noora-hooks/protocol"
)

// recorded reads a PostToolUse payload Claude Code 2.1.332 really sent
// (testdata/claude): its tool, its tool_input and its tool_response.
func recorded(t *testing.T, file string) (string, protocol.Object, json.RawMessage) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "claude", file))
	if err != nil {
		t.Fatal(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, data); err != nil {
		t.Fatal(err)
	}
	p := gjson.ParseBytes(compact.Bytes())
	input, err := protocol.ParseObject([]byte(p.Get("tool_input").Raw))
	if err != nil {
		t.Fatal(err)
	}
	return p.Get("tool_name").String(), input, json.RawMessage(p.Get("tool_response").Raw)
}

// Claude Code's real tool_responses become the results the Noora tools
// return, as JSON text.
func TestNooraResultOfRecordedResponses(t *testing.T) {
	for _, tt := range []struct{ name, file, want string }{
		{"Bash's is the terminal's", "PostToolUse_Bash.json",
			`{"output":"hello-from-fake-model","exit_code":0,"error":null}`},
		{"Read's is read_file's", "PostToolUse_Read.json",
			`{"content":"alpha\ngamma\n","total_lines":3}`},
		{"a created file's Write is write_file's, with the bytes the content has", "PostToolUse_Write_create.json",
			`{"bytes_written":11,"resolved_path":"RUN/project/notes.txt","files_modified":["RUN/project/notes.txt"],"type":"create","structuredPatch":[],"originalFile":null,"userModified":false}`},
		{"an updated file's Write keeps Claude's patch, which Noora has no name for", "PostToolUse_Write_update.json",
			`{"bytes_written":18,"resolved_path":"RUN/project/notes.txt","files_modified":["RUN/project/notes.txt"],"type":"update","structuredPatch":[{"oldStart":1,"oldLines":2,"newStart":1,"newLines":3,"lines":[" alpha"," gamma","+omega"]}],"originalFile":"alpha\ngamma\n","userModified":false}`},
		{"Edit's structuredPatch becomes patch's unified diff", "PostToolUse_Edit.json",
			`{"success":true,"diff":"--- RUN/project/notes.txt\n+++ RUN/project/notes.txt\n@@ -1,2 +1,2 @@\n alpha\n-beta\n+gamma\n","files_modified":["RUN/project/notes.txt"],"resolved_path":"RUN/project/notes.txt","originalFile":"alpha\nbeta\n","userModified":false}`},
		{"Glob's filenames are search_files' files", "PostToolUse_Glob.json",
			`{"total_count":1,"files":["notes.txt"],"durationMs":57}`},
		{"Grep's file list is a files_only search's", "PostToolUse_Grep_files_with_matches.json",
			`{"total_count":1,"files":["notes.txt"]}`},
		{"Grep's lines are a content search's matches", "PostToolUse_Grep_content.json",
			`{"total_count":1,"matches":[{"content":"gamma","line":2,"path":"notes.txt"}]}`},
		{"Grep's counts are a count search's", "PostToolUse_Grep_count.json",
			`{"total_count":19,"counts":{".claude/settings.json":16,"notes.txt":3}}`},
		{"WebFetch's page is web_extract's one result", "PostToolUse_WebFetch.json",
			`{"results":[{"url":"https://127.0.0.1:34419/page","content":"ok"}],"bytes":59,"code":200,"codeText":"OK","durationMs":37}`},
		{"WebSearch's links are web_search's results; the search model's text has no place", "PostToolUse_WebSearch.json",
			`{"success":true,"data":{"web":[{"title":"E2E page","url":"https://example.com/e2e","position":1}]},"query":"noora hooks","durationSeconds":0.010362588999999844,"searchCount":1}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tool, _, response := recorded(t, tt.file)
			got := gjson.ParseBytes(nooraResult(tool, response)).String()
			if got != tt.want {
				t.Errorf("nooraResult(%s) =\n%s\nwant\n%s", tool, got, tt.want)
			}
		})
	}
}

// Noora's results, in the shapes the Noora agent's tools return them, become
// Claude Code's tool_response, with the keys the recorded one has.
func TestClaudeResponseOfNooraResults(t *testing.T) {
	for _, tt := range []struct{ name, tool, args, result, want, recorded string }{
		{"write_file's result is Write's: filePath and content, and Noora's own keys", "write_file",
			`{"path":"notes.txt","content":"alpha\n"}`,
			`{"bytes_written":6,"dirs_created":false,"resolved_path":"/p/notes.txt","files_modified":["/p/notes.txt"]}`,
			`{"filePath":"/p/notes.txt","content":"alpha\n","bytes_written":6,"dirs_created":false}`, "PostToolUse_Write_update.json"},
		{"a file written into a new directory was created", "write_file",
			`{"path":"d/n.txt","content":""}`, `{"bytes_written":0,"dirs_created":true}`,
			`{"type":"create","filePath":"d/n.txt","content":"","bytes_written":0,"dirs_created":true}`, "PostToolUse_Write_create.json"},
		{"patch's diff is Edit's structuredPatch, its strings the call's", "patch",
			`{"mode":"replace","path":"notes.txt","old_string":"beta","new_string":"gamma"}`,
			`{"success":true,"diff":"--- a/notes.txt\n+++ b/notes.txt\n@@ -1,2 +1,2 @@\n alpha\n-beta\n+gamma\n","files_modified":["/p/notes.txt"],"resolved_path":"/p/notes.txt"}`,
			`{"filePath":"/p/notes.txt","oldString":"beta","newString":"gamma","structuredPatch":[{"oldStart":1,"oldLines":2,"newStart":1,"newLines":2,"lines":[" alpha","-beta","+gamma"]}],"replaceAll":false}`, "PostToolUse_Edit.json"},
		{"a file search is Glob's", "search_files", `{"pattern":"*.txt","target":"files"}`,
			`{"total_count":2,"files":["a.txt","b.txt"]}`,
			`{"filenames":["a.txt","b.txt"],"numFiles":2,"truncated":false,"totalMatches":2,"countIsComplete":true}`, "PostToolUse_Glob.json"},
		{"a truncated file search says its count is a lower bound", "search_files", `{"pattern":"*","target":"files"}`,
			`{"total_count":50,"files":["a"],"truncated":true,"total_count_is_lower_bound":true,"limit_reason":"search_timeout"}`,
			`{"filenames":["a"],"numFiles":1,"truncated":true,"totalMatches":50,"countIsComplete":false,"limit_reason":"search_timeout"}`, "PostToolUse_Glob.json"},
		{"a files_only search is Grep's files_with_matches", "search_files", `{"pattern":"x","output_mode":"files_only"}`,
			`{"total_count":1,"files":["notes.txt"]}`,
			`{"mode":"files_with_matches","filenames":["notes.txt"],"numFiles":1,"totalFiles":1}`, "PostToolUse_Grep_files_with_matches.json"},
		{"a content search's matches are Grep's lines", "search_files", `{"pattern":"gamma"}`,
			`{"total_count":2,"matches":[{"path":"a.txt","line":2,"content":"gamma"},{"path":"b.txt","line":7,"content":"x: gamma"}]}`,
			`{"mode":"content","numFiles":0,"filenames":[],"content":"a.txt:2:gamma\nb.txt:7:x: gamma","numLines":2,"totalLines":2}`, "PostToolUse_Grep_content.json"},
		{"path-grouped matches are Grep's lines too", "search_files", `{"pattern":"g","output_mode":"content"}`,
			`{"total_count":5,"matches_format":"path-grouped","matches_text":"a.txt\n  1: g1\n  2: g2\nb.txt\n  3: g3\n  4: g4\n  9: g: 5"}`,
			`{"mode":"content","numFiles":0,"filenames":[],"content":"a.txt:1:g1\na.txt:2:g2\nb.txt:3:g3\nb.txt:4:g4\nb.txt:9:g: 5","numLines":5,"totalLines":5}`, "PostToolUse_Grep_content.json"},
		{"a count search is Grep's count", "search_files", `{"pattern":"a","output_mode":"count"}`,
			`{"total_count":19,"counts":{".claude/settings.json":16,"notes.txt":3}}`,
			`{"mode":"count","numFiles":2,"filenames":[],"content":".claude/settings.json:16\nnotes.txt:3","numMatches":19}`, "PostToolUse_Grep_count.json"},
		{"web_extract's one page is WebFetch's", "web_extract", `{"urls":["https://example.com"]}`,
			`{"results":[{"url":"https://example.com","title":"Example","content":"# Example","error":null}]}`,
			`{"result":"# Example","url":"https://example.com","title":"Example"}`, "PostToolUse_WebFetch.json"},
		{"web_search's results are WebSearch's links", "web_search", `{"query":"go"}`,
			`{"success":true,"data":{"web":[{"title":"Go","url":"https://go.dev","description":"The Go language","position":1}]}}`,
			`{"query":"go","results":[{"content":[{"title":"Go","url":"https://go.dev","description":"The Go language","position":1}]}]}`, "PostToolUse_WebSearch.json"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args, err := protocol.ParseObject([]byte(tt.args))
			if err != nil {
				t.Fatal(err)
			}
			got := claudeResponse(tt.tool, args, protocol.String(tt.result))
			if string(got) != tt.want {
				t.Errorf("claudeResponse(%s) =\n%s\nwant\n%s", tt.tool, got, tt.want)
			}
			// Claude's keys in it are keys the real response has.
			_, _, real := recorded(t, tt.recorded)
			noora := gjson.Parse(tt.result)
			gjson.ParseBytes(got).ForEach(func(k, _ gjson.Result) bool {
				if !gjson.GetBytes(real, gjson.Escape(k.String())).Exists() && !noora.Get(gjson.Escape(k.String())).Exists() &&
					!(k.String() == "title" && tt.tool == "web_extract") {
					t.Errorf("key %q is neither Claude Code's nor Noora's", k)
				}
				return true
			})
		})
	}
}

// What does not have the shape a converter knows passes through: errors,
// a search with a hint after its JSON, a patch of several files, results
// of tools without converters.
func TestResultsOfOtherShapesPassThrough(t *testing.T) {
	for _, tt := range []struct{ name, tool, args, result string }{
		{"a write that failed", "write_file", `{"path":"x"}`, `{"bytes_written":0,"error":"permission denied"}`},
		{"a truncated search with its hint", "search_files", `{"pattern":"x"}`, "{\"total_count\":60,\"truncated\":true}\n\n[Hint: Results truncated. Use offset=50 to see more.]"},
		{"a V4A patch of two files", "patch", `{"mode":"patch","patch":"..."}`, `{"success":true,"diff":"","files_modified":["/a","/b"]}`},
		{"a search's error", "search_files", `{"pattern":"("}`, `{"total_count":0,"error":"Search failed: regex parse error"}`},
		{"delegate_task's result", "delegate_task", `{"goal":"g"}`, `{"results":[{"summary":"done"}]}`},
		{"plain text", "web_search", `{"query":"q"}`, `no results`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args, _ := protocol.ParseObject([]byte(tt.args))
			got := claudeResponse(tt.tool, args, protocol.String(tt.result))
			if want := unwrapResult(protocol.String(tt.result)); !bytes.Equal(got, want) {
				t.Errorf("claudeResponse = %s, want it as it was: %s", got, want)
			}
		})
	}
	for _, tt := range []struct{ name, tool, response string }{
		{"Grep's lines without line numbers", "Grep", `{"mode":"content","content":"a.txt:gamma","numLines":1}`},
		{"a Write without filePath", "Write", `{"type":"create"}`},
		{"the Agent tool's (no counterpart known)", "Agent", `{"status":"completed","content":[]}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := gjson.ParseBytes(nooraResult(tt.tool, json.RawMessage(tt.response))).String()
			if got != tt.response {
				t.Errorf("nooraResult = %s, want it as it was", got)
			}
		})
	}
}

// Claude → Noora → Claude gives back every key Claude Code sent, with its
// value, where Noora's shape has room for it (not WebSearch's text, not
// Read's line count of a file that ends in a newline).
func TestRecordedResponsesRoundTrip(t *testing.T) {
	for _, file := range []string{"PostToolUse_Bash.json", "PostToolUse_Write_create.json", "PostToolUse_Write_update.json",
		"PostToolUse_Edit.json", "PostToolUse_Glob.json", "PostToolUse_Grep_content.json", "PostToolUse_Grep_count.json",
		"PostToolUse_Grep_files_with_matches.json", "PostToolUse_WebFetch.json"} {
		t.Run(file, func(t *testing.T) {
			tool, input, response := recorded(t, file)
			name, args := NooraTool(tool, input)
			if tool == "Grep" {
				// Claude's Grep lists files when it is given no output_mode.
				if _, ok := args.Get("output_mode"); !ok {
					args = args.With("output_mode", protocol.String("files_only"))
				}
			}
			back := gjson.ParseBytes(claudeResponse(name, args, nooraResult(tool, response)))
			gjson.ParseBytes(response).ForEach(func(k, v gjson.Result) bool {
				if got := back.Get(gjson.Escape(k.String())); got.Raw != v.Raw {
					t.Errorf("%s: %s, want %s", k, got.Raw, v.Raw)
				}
				return true
			})
		})
	}
}

func TestUnifiedDiff(t *testing.T) {
	for _, tt := range []struct {
		name, diff string
		ok         bool
	}{
		{"a hunk without counts has one line", "@@ -3 +3 @@\n-a\n+b\n", true},
		{"a removed line that looks like a header stays in its hunk", "--- x\n+++ x\n@@ -1,2 +1,1 @@\n--- y\n z\n", true},
		{"text that is no diff", "hello", false},
		{"a hunk shorter than its header says", "@@ -1,3 +1,3 @@\n a\n", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			hunks, ok := parseUnifiedDiff(tt.diff)
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v (%v)", ok, tt.ok, hunks)
			}
			if !ok {
				return
			}
			text, ok := unifiedDiff("x", gjson.Parse(string(protocol.Raw(hunks))))
			again, ok2 := parseUnifiedDiff(text)
			if !ok || !ok2 || string(protocol.Raw(again)) != string(protocol.Raw(hunks)) {
				t.Errorf("%q → %v → %q → %v", tt.diff, hunks, text, again)
			}
		})
	}
}
