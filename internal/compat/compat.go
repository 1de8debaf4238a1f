// Package compat lets hooks written for Claude Code, Cursor, Gemini CLI or
// Codex CLI run under noora-hooks unchanged, and lets noora-hooks stand
// behind those tools as their one hook (SPEC §11). It holds the maps between
// their vocabularies and Noora's (events, tool names, tool_input keys), the
// dialects that speak their protocols to a shell hook (shellhook.Dialect), the bridge that
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
//   - Gemini CLI and Codex CLI: observed on @google/gemini-cli 0.61.0 and
//     @openai/codex 0.169.0 (gemini.go, codex.go).
package compat

import (
	"strings"

	"github.com/noora-hooks/noora-hooks/internal/dispatch"
	"github.com/noora-hooks/noora-hooks/internal/runner"
	"github.com/noora-hooks/noora-hooks/internal/shellhook"

	"github.com/noora-hooks/noora-hooks/internal/config"
	"github.com/noora-hooks/noora-hooks/protocol"
)

// Dialect names, as `dialect:` spells them (config.Dialects).
const (
	Claude = "claude"
	Cursor = "cursor"
	Gemini = "gemini"
	Codex  = "codex"
)

// Dialects returns the dialect implementations by name, for
// shellhook.ShellSource.Dialects.
func Dialects() map[string]shellhook.Dialect {
	return map[string]shellhook.Dialect{
		Claude: claudeDialect,
		Cursor: cursorDialect,
		Gemini: geminiDialect,
		Codex:  codexDialect,
	}
}

// ToolTitle is how messages name a dialect's tool.
func ToolTitle(dialect string) string {
	switch dialect {
	case Claude:
		return "Claude Code"
	case Cursor:
		return "Cursor"
	case Gemini:
		return "Gemini CLI"
	case Codex:
		return "Codex CLI"
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

// dialect speaks one tool's hook protocol to a shell hook (shellhook.Dialect).
// What differs between Claude Code and Cursor is the payload, the project
// directory variable and how an answer is read; matching by the tool's
// rules and falling back to Noora's protocol for events the tool does not
// have are the same for both.
type dialect struct {
	tool       string // Claude or Cursor
	projectVar string // CLAUDE_PROJECT_DIR, CURSOR_PROJECT_DIR
	payload    func(ev *Event, call dispatch.Call) protocol.Object
	read       func(ev *Event, call dispatch.Call, out runner.Outcome) shellhook.Reading
	// env, when set, replaces the project directory variable: the whole
	// environment the tool gives its hooks (Gemini CLI sets several
	// variables, Codex CLI none).
	env func(call dispatch.Call) []string
	// match, when set, replaces Claude's matcher rules (Match).
	match func(ev *Event, pattern, subject string) bool
}

// Applies implements shellhook.Dialect: the hook's event must map to call, and
// its matcher (by Claude's rules) must accept the event's subject.
func (d dialect) Applies(h config.ShellHook, call dispatch.Call) (bool, string) {
	ev, problem := eventFor(d.tool, h, call)
	if ev == nil {
		return false, problem
	}
	if h.Matcher == nil || ev.Matcher == "" {
		return true, "" // matchers are ignored on events without a subject
	}
	subject, _ := d.payload(ev, call).GetString(ev.Matcher)
	if d.match != nil {
		return d.match(ev, h.Matcher.Source, subject), ""
	}
	return Match(h.Matcher.Source, subject), ""
}

// Stdin implements shellhook.Dialect: the tool's payload, one line.
func (d dialect) Stdin(h config.ShellHook, call dispatch.Call) []byte {
	ev, _ := eventFor(d.tool, h, call)
	if ev == nil {
		return call.Payload()
	}
	b, _ := d.payload(ev, call).MarshalJSON()
	return append(b, '\n')
}

// Env implements shellhook.Dialect: the project directory the tool would set,
// unless the caller's environment already has it.
func (d dialect) Env(_ config.ShellHook, call dispatch.Call) []string {
	if d.env != nil {
		return d.env(call)
	}
	return []string{d.projectVar + "=" + projectDir(call.Env, d.projectVar, call.Cwd)}
}

// Read implements shellhook.Dialect by the tool's rules. A hook whose script
// is not there could not start: it failed, whatever its exit status says
// (python3 exits 2, which would read as a block).
func (d dialect) Read(h config.ShellHook, call dispatch.Call, out runner.Outcome) shellhook.Reading {
	if out.Code != 0 {
		env := runner.Environ(shellhook.Env(call), d.Env(h, call)...)
		if script, missing := missingScript(h.Command, call.Cwd, env); missing {
			return shellhook.Reading{Failed: true, Unusable: true, Reason: "program not found: " + script, Warnings: []string{
				"cannot start: the script " + script + " does not exist; a hook that cannot start is a failed hook, not a block"}}
		}
	}
	ev, _ := eventFor(d.tool, h, call)
	if ev == nil {
		return shellhook.ReadNoora(call.Event.Name, out)
	}
	return d.read(ev, call, out)
}
