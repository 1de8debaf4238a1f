package compat

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/google/shlex"

	"github.com/noora-hooks/noora-hooks/internal/shellhook"
)

// interpreters run a script named by their first argument that is not an
// option. python3 exits 2 when that file is missing ("can't open file"),
// which Claude Code's protocol would read as a block.
var interpreters = map[string]bool{
	"python": true, "python3": true, "node": true, "bash": true, "sh": true, "zsh": true,
	"ruby": true, "perl": true, "bun": true, "deno": true, "tsx": true, "ts-node": true, "php": true,
}

// missingScript reports the script a hook's command line runs through an
// interpreter when that file does not exist: a hook whose program cannot
// start. It looks through env, sh -c and uv run, and expands variables of
// env the way sh would (env is the hook's environment).
func missingScript(command, cwd string, env []string) (string, bool) {
	argv, err := shellhook.Argv(command)
	if err != nil {
		return "", false
	}
	return missingIn(argv, cwd, env, 0)
}

func missingIn(argv []string, cwd string, env []string, depth int) (string, bool) {
	if depth > 3 {
		return "", false
	}
	// env [-i] [NAME=VALUE...] program ...
	if len(argv) > 0 && filepath.Base(argv[0]) == "env" {
		argv = argv[1:]
		for len(argv) > 0 && (strings.HasPrefix(argv[0], "-") || strings.Contains(argv[0], "=")) {
			if name, value, ok := strings.Cut(argv[0], "="); ok && !strings.HasPrefix(name, "-") {
				env = append(env[:len(env):len(env)], name+"="+value)
			}
			argv = argv[1:]
		}
	}
	if len(argv) == 0 {
		return "", false
	}
	prog := filepath.Base(argv[0])
	args := argv[1:]
	if (prog == "sh" || prog == "bash") && len(args) >= 2 && args[0] == "-c" {
		inner := os.Expand(args[1], func(name string) string { return lookupEnv(env, name) })
		words, err := shlex.Split(firstCommand(inner))
		if err != nil || len(words) == 0 {
			return "", false
		}
		return missingIn(words, cwd, env, depth+1)
	}
	if prog == "uv" {
		// uv run [--script] [options] script.py
		if len(args) == 0 || args[0] != "run" {
			return "", false
		}
		args = args[1:]
	} else if !interpreters[prog] {
		return "", false
	}
	for _, a := range args {
		if a == "--script" || a == "--quiet" || a == "-q" {
			continue
		}
		if strings.HasPrefix(a, "-") {
			return "", false // an option we do not know may take the next word
		}
		if !looksLikeScript(a) {
			return "", false
		}
		p := a
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		if _, err := os.Stat(p); err != nil && os.IsNotExist(err) {
			return a, true
		}
		return "", false
	}
	return "", false
}

// looksLikeScript: a path or a file name with an extension, not a module or
// a subcommand.
func looksLikeScript(word string) bool {
	return strings.Contains(word, "/") || filepath.Ext(word) != ""
}

// firstCommand cuts a shell line at its first operator.
func firstCommand(line string) string {
	for i, c := range line {
		switch c {
		case ';', '&', '|', '\n', '>', '<':
			return line[:i]
		}
	}
	return line
}

func lookupEnv(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], name+"="); ok {
			return v
		}
	}
	return ""
}
