package config

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// parseJournal reads `journal:` and reports whether it turns the run journal
// off. The journal is on by default (docs/journal.md); PyYAML reads the same
// file, so YAML 1.1's off and no turn it off too.
func (c *Config) parseJournal(n *yaml.Node) bool {
	if isNullNode(n) {
		return false
	}
	if b, ok := boolValue(n); ok {
		return !b
	}
	if n.Kind == yaml.ScalarNode {
		switch strings.ToLower(strings.TrimSpace(n.Value)) {
		case "off", "no", "n", "false", "0":
			return true
		case "on", "yes", "y", "true", "1":
			return false
		}
	}
	c.warn(n, "journal must be a boolean (false turns the run journal off); kept on")
	return false
}

// Where is file:line of the entry, as the run journal and `why` name it.
func (h ShellHook) Where() string {
	if h.File == "" {
		return fmt.Sprintf("line %d", h.Line)
	}
	return fmt.Sprintf("%s:%d", h.File, h.Line)
}
