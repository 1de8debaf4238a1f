package compat

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/google/shlex"
	"github.com/tidwall/gjson"

	"github.com/noora-hooks/noora-hooks/internal/config"
	"github.com/noora-hooks/noora-hooks/protocol"
)

// Imported is what a Claude Code settings.json or a Cursor hooks.json holds,
// as noora-hooks config entries, and what could not be carried over.
type Imported struct {
	Entries  []config.Entry
	Warnings []string // "<file>: <where>: <what>", in file order
}

// Import reads the hooks of a Claude Code settings file (dialect "claude")
// or a Cursor hooks.json ("cursor"). file names it in messages and, for
// Cursor, anchors relative commands ("paths relative to the hooks.json
// file"). The error is for a file that is not a JSON object; everything
// else is a warning, and never silently dropped.
func Import(dialect, file string, data []byte) (Imported, error) {
	return importWith(dialect, file, data, nil)
}

func importWith(dialect, file string, data []byte, plugin *ClaudePlugin) (Imported, error) {
	var pre []string
	if dialect == Codex && strings.EqualFold(filepath.Ext(file), ".toml") {
		var err error
		if data, pre, err = codexTOML(file, data); err != nil {
			return Imported{}, err
		}
	}
	if !gjson.ValidBytes(data) {
		return Imported{}, jsonSyntaxError(file, data)
	}
	root := gjson.ParseBytes(data)
	if !root.IsObject() {
		return Imported{}, &config.SyntaxError{File: file, Line: 1, Col: 1, Msg: "expected a JSON object with \"hooks\""}
	}
	im := &importer{dialect: dialect, file: file, seen: map[string]bool{}, plugin: plugin}
	for _, w := range pre {
		im.warnf("", "%s", w)
	}
	if plugin != nil && plugin.Data != "" && !fileExists(plugin.Data) {
		im.warnf("", "CLAUDE_PLUGIN_DATA of plugin %s is %s, which does not exist: Claude Code creates it when the plugin first runs, noora-hooks does not (mkdir -p it if the hooks keep data there)", plugin.Name, plugin.Data)
	}
	switch dialect {
	case Claude, Codex:
		// Codex CLI's hooks.json (and config.toml [hooks]) is Claude's shape.
		im.claude(root)
	case Cursor:
		im.cursor(root)
	case Gemini:
		im.gemini(root)
	default:
		return Imported{}, fmt.Errorf("unknown dialect %q (valid: %s, %s, %s, %s)", dialect, Claude, Cursor, Gemini, Codex)
	}
	if im.defaultTimeouts > 0 && (dialect == Claude || dialect == Codex) {
		im.warnf("", "%d hook(s) set no timeout: %s gives those 600 s, noora-hooks 60 s (at most 300); add timeout: where that is too short", im.defaultTimeouts, ToolTitle(dialect))
	}
	return Imported{Entries: im.entries, Warnings: im.warnings}, nil
}

func jsonSyntaxError(file string, data []byte) error {
	var v any
	err := json.Unmarshal(data, &v)
	offset := int64(len(data))
	msg := "invalid JSON"
	if se, ok := err.(*json.SyntaxError); ok {
		offset, msg = se.Offset, se.Error()
	} else if err != nil {
		msg = err.Error()
	}
	// "after reading Offset bytes": the offending byte is the last one read.
	line, col := 1, 1
	for i := int64(0); i < offset-1 && i < int64(len(data)); i++ {
		if data[i] == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return &config.SyntaxError{File: file, Line: line, Col: col, Msg: msg}
}

type importer struct {
	dialect         string
	file            string
	entries         []config.Entry
	warnings        []string
	seen            map[string]bool
	defaultTimeouts int
	plugin          *ClaudePlugin // set when importing a Claude Code plugin's hooks
}

func (im *importer) warnf(where, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if where != "" {
		msg = where + ": " + msg
	}
	im.warnings = append(im.warnings, im.file+": "+msg)
}

var member = protocol.Member

// claude reads {"hooks": {"<Event>": [{"matcher": "...", "hooks": [{"type":
// "command", "command": "...", "timeout": N}]}]}} (Hooks reference,
// "Configuration").
func (im *importer) claude(root gjson.Result) {
	if member(root, "disableAllHooks").Type == gjson.True {
		im.warnf("disableAllHooks", "is true, so Claude Code runs none of these hooks; they are imported anyway, remove what you do not want")
	}
	hooks, ok := im.hooksObject(root)
	if !ok {
		return
	}
	hooks.ForEach(func(k, groups gjson.Result) bool {
		name := k.String()
		where := "hooks." + name
		ev, known := LookupEvent(im.dialect, name)
		if !groups.IsArray() {
			im.warnf(where, "expected a list of matcher groups; skipped")
			return true
		}
		for gi, group := range groups.Array() {
			gwhere := fmt.Sprintf("%s[%d]", where, gi)
			if !group.IsObject() {
				im.warnf(gwhere, "expected a matcher group (an object with \"hooks\"); skipped")
				continue
			}
			matcher, mok := im.matcher(gwhere, member(group, "matcher"))
			handlers := member(group, "hooks")
			if !handlers.IsArray() {
				im.warnf(gwhere, "expected \"hooks\": a list of hook handlers; skipped")
				continue
			}
			for hi, h := range handlers.Array() {
				hwhere := fmt.Sprintf("%s.hooks[%d]", gwhere, hi)
				if im.dialect == Claude && h.IsObject() && member(h, "type").String() == "http" {
					im.claudeHTTPEntry(hwhere, gwhere, name, ev, known, matcher, mok, h)
					continue
				}
				command, ok := im.handler(hwhere, h, "type", "command", "timeout", "args", "async", "statusMessage", "once")
				if !ok {
					continue
				}
				if !known || ev.Noora == "" {
					im.unmapped(hwhere, name, ev, command)
					continue
				}
				command = im.substitutePlugin(command)
				if args := member(h, "args"); args.Exists() {
					argv, ok := stringList(args)
					if !ok {
						im.warnf(hwhere, "args must be a list of strings; the hook %q is skipped", command)
						continue
					}
					for i := range argv {
						argv[i] = im.substitutePlugin(argv[i])
					}
					// command + args: a program and its arguments, no shell.
					command = joinArgv(append([]string{command}, argv...))
				}
				if im.dialect == Claude {
					im.checkResolved(hwhere, command)
				}
				im.handlerKeys(hwhere, h, command)
				e := im.claudeEntry(hwhere, gwhere, name, ev, matcher, mok, h)
				im.add(hwhere, ev, e, command, "")
				if name == "Notification" {
					im.warnf(hwhere, "Noora fires Notification hooks only for approval requests (notification_type permission_prompt, on pre_approval_request), never for idle notifications (idle_prompt) or others")
				}
			}
		}
		return true
	})
}

// cursor reads {"version": 1, "hooks": {"<event>": [{"command": "...",
// "timeout": N, "matcher": "...", "failClosed": bool}]}} (Cursor hooks,
// "Configuration"; timeout, matcher and failClosed come from later Cursor
// releases and are carried over when present).
func (im *importer) cursor(root gjson.Result) {
	if v := member(root, "version"); v.Exists() && v.Raw != "1" {
		im.warnf("version", "is %s; noora-hooks reads hooks.json version 1", v.Raw)
	}
	hooks, ok := im.hooksObject(root)
	if !ok {
		return
	}
	base := filepath.Dir(im.file)
	if abs, err := filepath.Abs(base); err == nil {
		base = abs
	}
	hooks.ForEach(func(k, list gjson.Result) bool {
		name := k.String()
		where := "hooks." + name
		ev, known := LookupEvent(Cursor, name)
		if !list.IsArray() {
			im.warnf(where, "expected a list of hook definitions; skipped")
			return true
		}
		for i, h := range list.Array() {
			hwhere := fmt.Sprintf("%s[%d]", where, i)
			command, ok := im.handler(hwhere, h, "type", "command", "timeout", "matcher", "failClosed", "loop_limit")
			if !ok {
				continue
			}
			if !known || ev.Noora == "" {
				im.unmapped(hwhere, name, ev, command)
				continue
			}
			e := config.Entry{Event: ev.Noora, Dialect: Cursor}
			if m, ok := im.matcher(hwhere, member(h, "matcher")); ok && m != "" {
				if ev.Matcher == "" {
					im.warnf(hwhere, "%s has nothing a matcher could filter; the matcher %q is dropped", name, m)
				} else {
					e.Matcher = m
				}
			}
			e.Timeout = im.timeout(hwhere, member(h, "timeout"))
			if fc := member(h, "failClosed"); fc.Exists() {
				switch {
				case fc.Type != gjson.True && fc.Type != gjson.False:
					im.warnf(hwhere, "failClosed must be true or false; treated as false")
				case fc.Type == gjson.True && ev.Noora != "pre_tool_call":
					im.warnf(hwhere, "failClosed applies only to hooks that can block a tool call; dropped on %s", name)
				default:
					e.FailClosed = fc.Type == gjson.True
				}
			}
			if member(h, "loop_limit").Exists() {
				im.warnf(hwhere, "loop_limit has no noora-hooks counterpart (Noora bounds pre_verify nudges with agent.max_verify_nudges); not carried over")
			}
			im.add(hwhere, ev, e, command, base)
		}
		return true
	})
}

// handlerKeys warns about the keys of a Claude hook handler that do not
// carry over.
func (im *importer) handlerKeys(where string, h gjson.Result, what string) {
	if member(h, "async").Type == gjson.True {
		im.warnf(where, "async: true runs %q in the background in Claude Code; noora-hooks waits for it (set a short timeout if it is slow)", what)
	}
	for _, key := range []string{"statusMessage", "once"} {
		if member(h, key).Exists() {
			im.warnf(where, "%s has no noora-hooks counterpart; not carried over", key)
		}
	}
}

// claudeEntry is the entry of a Claude hook handler: its event, matcher and
// timeout.
func (im *importer) claudeEntry(where, gwhere, name string, ev *Event, matcher string, mok bool, h gjson.Result) config.Entry {
	e := config.Entry{Event: ev.Noora, Dialect: im.dialect}
	if mok && matcher != "" {
		if ev.Matcher == "" {
			im.warnf(gwhere, "%s ignores matchers on %s; the matcher %q is dropped", ToolTitle(im.dialect), name, matcher)
		} else {
			e.Matcher = matcher
			if im.dialect == "claude" {
				m := config.NewMatcher(matcher)
				if m.Match("Task", true) && !m.Match("Agent", true) {
					im.warnf(gwhere, "matcher %q names Task, which Claude Code calls Agent since 2.1.63: it matches no subagent call there, nor here (delegate_task is Agent); write Agent", matcher)
				}
			}
		}
	}
	e.Timeout = im.timeout(where, member(h, "timeout"))
	if e.Timeout == 0 {
		im.defaultTimeouts++
	}
	return e
}

// claudeHTTPEntry imports a hook of type "http" as a URL hook.
func (im *importer) claudeHTTPEntry(where, gwhere, name string, ev *Event, known bool, matcher string, mok bool, h gjson.Result) {
	e := config.Entry{}
	if !im.claudeHTTP(where, h, &e) {
		return
	}
	if !known || ev.Noora == "" {
		im.unmapped(where, name, ev, e.URL)
		return
	}
	im.handlerKeys(where, h, e.URL)
	entry := im.claudeEntry(where, gwhere, name, ev, matcher, mok, h)
	entry.URL, entry.Command, entry.Headers, entry.AllowedEnvVars = e.URL, e.URL, e.Headers, e.AllowedEnvVars
	entry.Comment = httpNote(entry)
	if !soleEvent(ev) {
		entry.DialectEvent = ev.Name
	}
	key := strings.Join([]string{entry.Event, entry.Matcher, entry.Command, entry.DialectEvent}, "\x00")
	if im.seen[key] {
		im.warnf(where, "the same hook (%s, matcher %q, %q) is already imported; it runs once", ev.Name, entry.Matcher, e.URL)
		return
	}
	im.seen[key] = true
	im.entries = append(im.entries, entry)
}

func (im *importer) hooksObject(root gjson.Result) (gjson.Result, bool) {
	hooks := member(root, "hooks")
	switch {
	case !hooks.Exists():
		im.warnf("", "no \"hooks\" in the file; nothing to import")
		return hooks, false
	case !hooks.IsObject():
		im.warnf("hooks", "expected an object of events; nothing imported")
		return hooks, false
	}
	return hooks, true
}

// handler checks one hook handler and returns its command.
func (im *importer) handler(where string, h gjson.Result, known ...string) (string, bool) {
	if !h.IsObject() {
		im.warnf(where, "expected an object with a command; skipped")
		return "", false
	}
	if typ := member(h, "type"); typ.Exists() && typ.String() != "command" {
		what := typ.Raw
		if typ.Type == gjson.String {
			what = fmt.Sprintf("%q", typ.String())
		}
		switch t := typ.String(); {
		case im.dialect == Claude && (t == "prompt" || t == "agent"):
			im.warnf(where, "a hook of type %s is evaluated by a model in Claude Code; noora-hooks runs no model, so it cannot be carried over; skipped", what)
		default:
			im.warnf(where, "a hook of type %s cannot be carried over: noora-hooks runs commands only; skipped", what)
		}
		return "", false
	}
	command := member(h, "command")
	if command.Type != gjson.String || strings.TrimSpace(command.String()) == "" {
		im.warnf(where, "no command; skipped")
		return "", false
	}
	if !utf8.ValidString(command.String()) {
		im.warnf(where, "the command is not valid UTF-8; skipped")
		return "", false
	}
	h.ForEach(func(k, _ gjson.Result) bool {
		for _, want := range known {
			if k.String() == want {
				return true
			}
		}
		im.warnf(where, "%q is not something noora-hooks knows; not carried over", k.String())
		return true
	})
	return strings.TrimSpace(command.String()), true
}

func (im *importer) unmapped(where, name string, ev *Event, command string) {
	if ev == nil {
		im.warnf(where, "%s event %q is unknown to noora-hooks; the hook %q is not carried over", ToolTitle(im.dialect), name, command)
		return
	}
	im.warnf(where, "%s hook %q cannot be carried over: %s", name, command, ev.Missing)
}

// matcher reads a matcher; "*" and blanks mean none.
func (im *importer) matcher(where string, m gjson.Result) (string, bool) {
	if !m.Exists() || m.Type == gjson.Null {
		return "", true
	}
	if m.Type != gjson.String {
		im.warnf(where, "matcher must be a string; ignored, so the hook runs for everything")
		return "", false
	}
	s := strings.TrimSpace(m.String())
	if s == "*" {
		return "", true
	}
	if !utf8.ValidString(s) {
		im.warnf(where, "matcher is not valid UTF-8; ignored, so the hook runs for everything")
		return "", false
	}
	if !MatcherCompiles(s) {
		im.warnf(where, "matcher %q uses regular-expression syntax Go does not support (lookaround, backreferences); it is compared literally", s)
	}
	return s, true
}

// timeout reads a timeout in seconds; 0 means the default.
func (im *importer) timeout(where string, t gjson.Result) int {
	if !t.Exists() || t.Type == gjson.Null {
		return 0
	}
	f := t.Float()
	if t.Type != gjson.Number || f != math.Trunc(f) || f < 1 {
		im.warnf(where, "timeout %s is not a whole number of seconds of at least 1; the default (60 s) applies", t.Raw)
		return 0
	}
	if max := config.MaxTimeout.Seconds(); f > max {
		im.warnf(where, "timeout %s s is over noora-hooks' maximum; clamped to %d s", t.Raw, int(max))
		return int(max)
	}
	return int(f)
}

// add records an entry for command, made runnable without a shell.
func (im *importer) add(where string, ev *Event, e config.Entry, command, base string) {
	shell := "sh"
	if im.dialect == Gemini || im.dialect == Codex {
		shell = "bash" // both run hooks with bash -c
	}
	cmd, comment, warns := runnableCommand(shell, command, base)
	for _, w := range warns {
		im.warnf(where, "%s", w)
	}
	if im.plugin != nil {
		// Claude Code sets both for every hook of a plugin; its scripts
		// read them.
		env := joinArgv([]string{"env", "CLAUDE_PLUGIN_ROOT=" + im.plugin.Root, "CLAUDE_PLUGIN_DATA=" + im.plugin.Data})
		cmd = env + " " + cmd
		note := "from the Claude Code plugin " + im.plugin.Name + ": CLAUDE_PLUGIN_ROOT and CLAUDE_PLUGIN_DATA set as Claude Code sets them"
		if comment != "" {
			comment += "\n" + note
		} else {
			comment = note
		}
	}
	e.Command = cmd
	if comment != "" && e.Comment != "" {
		e.Comment += "; " + comment
	} else if comment != "" {
		e.Comment = comment
	}
	if !soleEvent(ev) {
		e.DialectEvent = ev.Name
	}
	key := strings.Join([]string{e.Event, e.Matcher, e.Command, e.DialectEvent}, "\x00")
	if im.seen[key] {
		im.warnf(where, "the same hook (%s, matcher %q, %q) is already imported; it runs once", ev.Name, e.Matcher, command)
		return
	}
	im.seen[key] = true
	im.entries = append(im.entries, e)
}

// soleEvent: the dialect has no other event for ev's Noora event, so the
// entry needs no dialect_event to say which it is.
func soleEvent(ev *Event) bool {
	for _, other := range eventList(ev.Dialect) {
		if other.Noora == ev.Noora && other.Name != ev.Name {
			return false
		}
	}
	return true
}

func stringList(v gjson.Result) ([]string, bool) {
	if !v.IsArray() {
		return nil, false
	}
	var out []string
	for _, x := range v.Array() {
		if x.Type != gjson.String || !utf8.ValidString(x.String()) {
			return nil, false
		}
		out = append(out, x.String())
	}
	return out, true
}

// RunnableCommand turns a command line written for a shell (Claude Code and
// Cursor run hooks through one) into one noora-hooks runs without a shell
// (SPEC §2). A line that needs the shell (&&, pipes, redirects, $VAR, ...) is
// wrapped as sh -c '...', with a comment saying why. For Cursor, base is the
// hooks.json directory, against which relative paths are resolved ("a path
// relative to the hooks.json file"): noora-hooks runs hooks in the working
// directory.
func RunnableCommand(command, base string) (cmd, comment string, warnings []string) {
	return runnableCommand("sh", command, base)
}

// runnableCommand is RunnableCommand with the shell the tool runs hooks
// with (Gemini CLI and Codex CLI use bash).
func runnableCommand(shell, command, base string) (cmd, comment string, warnings []string) {
	if reasons := shellNeeds(command); len(reasons) > 0 {
		if base != "" && startsRelative(command) {
			warnings = append(warnings, fmt.Sprintf("%q starts with a relative path, which Cursor resolves against %s; inside sh -c it is resolved against the working directory: check it", command, base))
		}
		return shell + " -c " + shQuote(command), "needs a shell (" + strings.Join(reasons, ", ") + "): wrapped in " + shell + " -c", warnings
	}
	if base == "" {
		return command, "", nil
	}
	argv, err := shlex.Split(command)
	if err != nil || len(argv) == 0 {
		return command, "", nil
	}
	changed := false
	for i, a := range argv {
		if p, ok := cursorPath(base, a, i == 0); ok {
			argv[i], changed = p, true
		}
	}
	if !changed {
		return command, "", nil
	}
	return joinArgv(argv), "", nil
}

// cursorPath resolves a word of a Cursor command that is a path relative to
// the hooks.json directory: ./x and ../x always; dir/x for the program, and
// for an argument when that file exists there (python3 hooks/x.py).
func cursorPath(base, word string, program bool) (string, bool) {
	if !startsRelative(word) || strings.HasPrefix(word, "-") {
		return "", false
	}
	p := filepath.Join(base, word)
	if !program && !strings.HasPrefix(word, "./") && !strings.HasPrefix(word, "../") {
		if _, err := os.Stat(p); err != nil {
			return "", false
		}
	}
	if program {
		return homeRelative(p), true
	}
	return p, true
}

// startsRelative: the command's first word is a relative path to a program
// (./x, ../x, dir/x).
func startsRelative(s string) bool {
	fields := strings.Fields(s)
	if len(fields) == 0 {
		return false
	}
	first := fields[0]
	switch {
	case strings.HasPrefix(first, "./"), strings.HasPrefix(first, "../"):
		return true
	case filepath.IsAbs(first), strings.ContainsAny(first[:1], "~$'\"`"):
		return false
	}
	return strings.Contains(first, "/")
}

// homeRelative writes a path under the home directory as ~/..., which
// noora-hooks expands for the program (SPEC §2), so the config travels.
func homeRelative(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return abs
	}
	if rel, err := filepath.Rel(home, abs); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
		return "~/" + filepath.ToSlash(rel)
	}
	return abs
}

// shellBuiltins have no program of their own to run without a shell.
var shellBuiltins = map[string]bool{
	"cd": true, "exit": true, "export": true, "source": true, ".": true, "set": true, "unset": true,
	"alias": true, "eval": true, "exec": true, "read": true, "return": true, "shift": true,
	"trap": true, "ulimit": true, "umask": true, "wait": true, "[[": true, "function": true,
	"if": true, "for": true, "while": true, "until": true, "case": true,
}

// shellNeeds lists what in command only a shell does; nil when splitting it
// the POSIX way and running it directly does the same thing.
func shellNeeds(command string) []string {
	var reasons []string
	seen := map[string]bool{}
	need := func(r string) {
		if !seen[r] {
			seen[r] = true
			reasons = append(reasons, r)
		}
	}
	const (
		plain = iota
		single
		double
	)
	state, word, wordStart, firstWord := plain, 0, true, ""
	substitution := 0 // open $( ... ) levels
	inFirst := true
	rs := []rune(command)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		next := rune(0)
		if i+1 < len(rs) {
			next = rs[i+1]
		}
		switch state {
		case single:
			if c == '\'' {
				state = plain
			} else if inFirst {
				firstWord += string(c)
			}
			continue
		case double:
			switch c {
			case '"':
				state = plain
			case '\\':
				i++
			case '$':
				if next == '(' {
					need("command substitution")
				} else {
					need("$ expansion")
				}
			case '`':
				need("command substitution")
			default:
				if inFirst {
					firstWord += string(c)
				}
			}
			continue
		}
		if c == ' ' || c == '\t' {
			if !wordStart {
				word++
				inFirst = false
			}
			wordStart = true
			continue
		}
		atStart := wordStart
		wordStart = false
		switch c {
		case '\'':
			state = single
		case '"':
			state = double
		case '\\':
			i++
		case '\n', '\r':
			need("several lines")
		case '|':
			if next == '|' {
				need("||")
				i++
			} else {
				need("a pipe")
			}
		case '&':
			if next == '&' {
				need("&&")
				i++
			} else {
				need("&")
			}
		case ';':
			need(";")
		case '<', '>':
			need("a redirect")
			if next == '&' {
				i++ // 2>&1
			}
		case '$':
			if next == '(' {
				need("command substitution")
				substitution++
				i++
			} else {
				need("$ expansion")
			}
		case '`':
			need("command substitution")
		case '*', '?', '[':
			need("globbing")
		case '(':
			if substitution > 0 {
				substitution++
			} else {
				need("a subshell")
			}
		case ')':
			if substitution > 0 {
				substitution--
			} else {
				need("a subshell")
			}
		case '#':
			need("a comment")
		case '~':
			if atStart && word > 0 {
				need("~ expansion")
			} else if atStart && next != '/' && next != 0 && next != ' ' {
				need("~user expansion")
			}
		case '=':
			if word == 0 {
				need("a variable assignment")
			}
		case '!':
			if atStart {
				need("!")
			}
		}
		if inFirst {
			firstWord += string(c)
		}
	}
	if state != plain {
		need("unbalanced quotes")
	}
	if shellBuiltins[firstWord] {
		need("the shell builtin " + firstWord)
	}
	return reasons
}

// shQuote quotes s for sh as one word.
func shQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// joinArgv writes argv as a command line that noora-hooks splits back into
// argv (quoting only what its POSIX splitter treats specially).
func joinArgv(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && !strings.ContainsAny(a, " \t\n\r'\"\\#") {
			parts[i] = a
		} else {
			parts[i] = shQuote(a)
		}
	}
	return strings.Join(parts, " ")
}
