package compat

import (
	"testing"

	"github.com/noora-hooks/noora-hooks/protocol"
)

func obj(t *testing.T, s string) protocol.Object {
	t.Helper()
	if s == "" {
		return nil
	}
	o, err := protocol.ParseObject([]byte(s))
	if err != nil {
		t.Fatalf("bad test object %s: %v", s, err)
	}
	return o
}

func jsonOf(o protocol.Object) string {
	if o == nil {
		return ""
	}
	b, _ := o.MarshalJSON()
	return string(b)
}

// Both directions at once: Noora → Claude, and that Claude call back to Noora.
func TestToolMap(t *testing.T) {
	tests := []struct {
		name              string
		nooraTool, nooraA string
		claudeTool, clA   string
		backA             string // what comes back, when not nooraA
	}{
		{"terminal is Bash, timeout in milliseconds", "terminal", `{"command":"npm test","timeout":120,"background":true}`,
			"Bash", `{"command":"npm test","timeout":120000,"run_in_background":true}`, ""},
		{"read_file is Read, path is file_path", "read_file", `{"path":"src/a.go","offset":10,"limit":50}`,
			"Read", `{"file_path":"src/a.go","offset":10,"limit":50}`, ""},
		{"write_file is Write", "write_file", `{"path":"a.txt","content":"hi"}`,
			"Write", `{"file_path":"a.txt","content":"hi"}`, ""},
		{"patch in replace mode is Edit", "patch", `{"mode":"replace","path":"a.go","old_string":"a","new_string":"b","replace_all":true}`,
			"Edit", `{"file_path":"a.go","old_string":"a","new_string":"b","replace_all":true}`, ""},
		{"patch without a mode is Edit, and comes back in replace mode", "patch", `{"path":"a.go","old_string":"a","new_string":"b"}`,
			"Edit", `{"file_path":"a.go","old_string":"a","new_string":"b"}`, `{"mode":"replace","path":"a.go","old_string":"a","new_string":"b"}`},
		{"patch with a list of edits is MultiEdit", "patch", `{"mode":"replace","path":"a.go","edits":[{"old_string":"a","new_string":"b"}]}`,
			"MultiEdit", `{"file_path":"a.go","edits":[{"old_string":"a","new_string":"b"}]}`, ""},
		{"a content search is Grep", "search_files", `{"pattern":"TODO","target":"content","path":"src","file_glob":"*.go","context":2,"limit":20,"output_mode":"files_only"}`,
			"Grep", `{"pattern":"TODO","path":"src","glob":"*.go","-C":2,"head_limit":20,"output_mode":"files_with_matches"}`,
			`{"target":"content","pattern":"TODO","path":"src","file_glob":"*.go","context":2,"limit":20,"output_mode":"files_only"}`},
		{"a line search without output_mode says content to Claude, whose Grep lists files by default", "search_files", `{"target":"content","pattern":"x"}`,
			"Grep", `{"pattern":"x","output_mode":"content"}`, `{"target":"content","pattern":"x","output_mode":"content"}`},
		{"a file search is Glob", "search_files", `{"pattern":"*.go","target":"files","path":"src"}`,
			"Glob", `{"pattern":"*.go","path":"src"}`, `{"target":"files","pattern":"*.go","path":"src"}`},
		{"web_search is WebSearch", "web_search", `{"query":"go 1.26"}`, "WebSearch", `{"query":"go 1.26"}`, ""},
		{"web_extract of one page is WebFetch", "web_extract", `{"urls":["https://go.dev"],"prompt":"summarise"}`,
			"WebFetch", `{"url":"https://go.dev","prompt":"summarise"}`, ""},
		{"web_extract of several pages keeps its list", "web_extract", `{"urls":["https://a","https://b"]}`,
			"WebFetch", `{"urls":["https://a","https://b"]}`, ""},
		{"delegate_task is Agent (Claude Code's Task since 2.1.63), goal is prompt", "delegate_task", `{"goal":"find the bug","toolsets":["files"]}`,
			"Agent", `{"prompt":"find the bug","toolsets":["files"]}`, ""},
		{"an MCP tool is mcp__server__tool", "mcp_github_create_issue", `{"title":"x"}`,
			"mcp__github__create_issue", `{"title":"x"}`, ""},
		{"a tool Claude lacks keeps its name", "browser_navigate", `{"url":"https://x"}`,
			"browser_navigate", `{"url":"https://x"}`, ""},
		{"a call without arguments stays without", "terminal", "", "Bash", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name, args := ClaudeTool(tt.nooraTool, obj(t, tt.nooraA))
			if name != tt.claudeTool || jsonOf(args) != tt.clA {
				t.Errorf("ClaudeTool = %s %s, want %s %s", name, jsonOf(args), tt.claudeTool, tt.clA)
			}
			back, backArgs := NooraTool(name, args)
			want := tt.nooraA
			if tt.backA != "" {
				want = tt.backA
			}
			if back != tt.nooraTool || jsonOf(backArgs) != want {
				t.Errorf("NooraTool = %s %s, want %s %s", back, jsonOf(backArgs), tt.nooraTool, want)
			}
		})
	}
}

func TestClaudeToolsComingIn(t *testing.T) {
	tests := []struct {
		name, claude, input, noora, args string
	}{
		{"Edit gets Noora's replace mode", "Edit", `{"file_path":"a","old_string":"x","new_string":"y"}`,
			"patch", `{"mode":"replace","path":"a","old_string":"x","new_string":"y"}`},
		{"Glob gets target files", "Glob", `{"pattern":"**/*.ts"}`, "search_files", `{"target":"files","pattern":"**/*.ts"}`},
		{"Grep gets target content", "Grep", `{"pattern":"x","output_mode":"count"}`, "search_files", `{"target":"content","pattern":"x","output_mode":"count"}`},
		{"Grep without output_mode lists files, as it does in Claude", "Grep", `{"pattern":"x"}`, "search_files", `{"target":"content","pattern":"x","output_mode":"files_only"}`},
		{"an older Claude's Task is delegate_task too", "Task", `{"prompt":"p","subagent_type":"general"}`, "delegate_task", `{"goal":"p","subagent_type":"general"}`},
		{"a Bash timeout in milliseconds becomes seconds", "Bash", `{"command":"sleep 1","timeout":1500}`, "terminal", `{"command":"sleep 1","timeout":1.5}`},
		{"a server name is sanitised the way Noora does", "mcp__my-server__do.it", `{"q":1}`, "mcp_my_server_do_it", `{"q":1}`},
		{"an unknown tool keeps everything", "NotebookEdit", `{"notebook_path":"a.ipynb"}`, "NotebookEdit", `{"notebook_path":"a.ipynb"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name, args := NooraTool(tt.claude, obj(t, tt.input))
			if name != tt.noora || jsonOf(args) != tt.args {
				t.Errorf("NooraTool = %s %s, want %s %s", name, jsonOf(args), tt.noora, tt.args)
			}
		})
	}
}

func TestCursorMCPNames(t *testing.T) {
	for _, tool := range []string{"database_query", "create_issue"} {
		if got := cursorMCPName(nooraCursorMCPName(tool)); got != tool {
			t.Errorf("round trip of %q gave %q", tool, got)
		}
	}
	if got := nooraCursorMCPName("query"); got != "mcp_query" {
		t.Errorf("nooraCursorMCPName(query) = %q, want mcp_query", got)
	}
}
