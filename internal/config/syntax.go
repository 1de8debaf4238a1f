package config

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/noora-hooks/noora-hooks/internal/lazy"
	"gopkg.in/yaml.v3"
)

var yamlLine = lazy.Regexp(`^yaml: line (\d+): (.*)$`)

// syntaxError turns a yaml.v3 error into a *SyntaxError with file:line:col.
// yaml.v3 reports the line but not the column, so the column is found by
// parsing ever longer prefixes of that line until the same error appears: the
// first character that makes the parser fail is where the problem is.
func syntaxError(path string, data []byte, err error) error {
	m := yamlLine().FindStringSubmatch(err.Error())
	if m == nil {
		return &SyntaxError{File: path, Line: 1, Col: 1, Msg: strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	line, _ := strconv.Atoi(m[1])
	return &SyntaxError{File: path, Line: line, Col: column(data, line, err.Error()), Msg: m[2]}
}

func column(data []byte, line int, want string) int {
	lines := bytes.SplitAfter(data, []byte("\n"))
	if line < 1 || line > len(lines) {
		return 1
	}
	var before []byte
	for _, l := range lines[:line-1] {
		before = append(before, l...)
	}
	text := bytes.TrimRight(lines[line-1], "\r\n")
	// Bounded work: at most about 4 MiB of re-parsing, whatever the file.
	if len(text) > 0 && (len(before)+len(text))*len(text) <= 4<<20 {
		for c := 1; c <= len(text); c++ {
			doc := append(append(append([]byte(nil), before...), text[:c]...), '\n')
			var n yaml.Node
			if e := yaml.Unmarshal(doc, &n); e != nil && e.Error() == want {
				return c
			}
		}
	}
	// The error comes from what follows the line (an unclosed bracket, say):
	// point at its first non-blank character.
	return len(text) - len(bytes.TrimLeft(text, " \t")) + 1
}
