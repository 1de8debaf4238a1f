// Package compat lets hooks written for Claude Code or Cursor run under
// noora-hooks unchanged, and lets noora-hooks stand behind those tools as
// their one hook (SPEC §11). It holds the maps between their vocabularies
// and Noora's (events, tool names, tool_input keys), the two dialects that
// speak their protocols to a shell hook (runner.Dialect), the bridge that
// answers their calls, and the importer of their settings files.
//
// It translates only: it never spawns a process (runner does), never reads
// a config file (config does), and never grants more than a hook asked for.
// In particular nothing here turns a Noora answer into Claude Code's
// "allow" or Cursor's "permission: allow", which would skip those tools'
// own permission prompts.
//
// The facts about the other tools come from their public hook references:
//   - Claude Code: "Hooks reference", https://code.claude.com/docs/en/hooks,
//     as published in February 2026 (Claude Code 2.1), and its per-event
//     input fields and tool_input schemas of the same period.
//   - Cursor: "Hooks", https://cursor.com/docs/agent/hooks, as published for
//     Cursor 1.7 (hooks.json "version": 1, October 2025).
package compat

import (
	"strings"

	"github.com/noora-hooks/noora-hooks/runner"
)

// Dialect names, as `dialect:` spells them (config.Dialects).
const (
	Claude = "claude"
	Cursor = "cursor"
)

// Dialects returns the dialect implementations by name, for
// runner.ShellSource.Dialects.
func Dialects() map[string]runner.Dialect {
	return map[string]runner.Dialect{
		Claude: claudeDialect{},
		Cursor: cursorDialect{},
	}
}

// ToolTitle is how messages name a dialect's tool.
func ToolTitle(dialect string) string {
	switch dialect {
	case Claude:
		return "Claude Code"
	case Cursor:
		return "Cursor"
	}
	return dialect
}

// projectDir is the project directory a dialect hook is told about
// (CLAUDE_PROJECT_DIR, CURSOR_PROJECT_DIR): the value the caller already has
// when it is itself run by that tool, else the working directory, which is
// where the Noora agent works.
func projectDir(env []string, name, cwd string) string {
	prefix := name + "="
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], prefix); ok && v != "" {
			return v
		}
	}
	return cwd
}
