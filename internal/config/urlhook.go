package config

import (
	"strings"

	"github.com/noora-hooks/noora-hooks/internal/lazy"
	"gopkg.in/yaml.v3"
)

// A URL hook is an entry with `url:` instead of `command:` (SPEC §2): the
// payload is POSTed to the URL and the response body is the answer, read as
// a command's stdout would be. It lets a fleet of agents consult one policy
// service. Consent is per (event, URL): the URL stands where the command
// stands, in ShellHook.Command too.

// Header is one HTTP header of a URL hook. Its value may name environment
// variables ($NAME or ${NAME}) listed in the entry's allowed_env_vars; they
// are expanded at request time from the caller's environment, and any
// other reference expands to nothing (as Claude Code's http hooks do).
type Header struct {
	Name, Value string
}

// MaxURLHeaders bounds the headers of one URL hook.
const MaxURLHeaders = 64

var headerName = lazy.Regexp("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")

// envRef matches $NAME and ${NAME} in a header value.
var envRef = lazy.Regexp(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)`)

// HeaderEnvRefs lists the variables a header value names.
func HeaderEnvRefs(value string) []string {
	var names []string
	for _, m := range envRef().FindAllStringSubmatch(value, -1) {
		names = append(names, m[1]+m[2])
	}
	return names
}

// ExpandHeader expands the allowed variables of a header value with lookup;
// references to others become "".
func ExpandHeader(value string, allowed []string, lookup func(string) string) string {
	return envRef().ReplaceAllStringFunc(value, func(m string) string {
		name := strings.Trim(m, "${}")
		for _, a := range allowed {
			if a == name {
				return lookup(name)
			}
		}
		return ""
	})
}

// parseURLHook fills h from the url, headers and allowed_env_vars of an
// entry; false skips the entry.
func (c *Config) parseURLHook(where string, h *ShellHook, urlNode, headers, allowed *yaml.Node) bool {
	raw := c.stringField(where, "url", urlNode)
	if raw == "" {
		c.warn(urlNode, "%s: url is empty; skipped", where)
		return false
	}
	u, ok := c.parseURL(where, &yaml.Node{Kind: yaml.ScalarNode, Value: raw, Line: urlNode.Line})
	if !ok {
		return false
	}
	h.URL, h.Command = u, u
	if allowed != nil && !isNullNode(allowed) {
		if allowed.Kind != yaml.SequenceNode {
			c.warn(allowed, "%s: allowed_env_vars must be a list of variable names; ignored", where)
		} else {
			for _, v := range allowed.Content {
				name := strings.TrimSpace(v.Value)
				if v.Kind != yaml.ScalarNode || !envName().MatchString(name) {
					c.warn(v, "%s: allowed_env_vars: %q is not a variable name; ignored", where, v.Value)
					continue
				}
				h.AllowedEnvVars = append(h.AllowedEnvVars, name)
			}
		}
	}
	if headers != nil && !isNullNode(headers) {
		if headers.Kind != yaml.MappingNode {
			c.warn(headers, "%s: headers must be a mapping of header names to values; ignored", where)
			return true
		}
		for i := 0; i+1 < len(headers.Content); i += 2 {
			k, v := headers.Content[i], headers.Content[i+1]
			name := strings.TrimSpace(k.Value)
			if v.Kind != yaml.ScalarNode || HeaderProblem(name, v.Value) != "" {
				c.warn(v, "%s: header %q must be a valid HTTP header name with a one-line string value; ignored", where, k.Value)
				continue
			}
			if len(h.Headers) == MaxURLHeaders {
				c.warn(k, "%s: more than %d headers; the rest are ignored", where, MaxURLHeaders)
				break
			}
			for _, ref := range HeaderEnvRefs(v.Value) {
				if !contains(h.AllowedEnvVars, ref) {
					c.warn(v, "%s: header %s names $%s, which is not in allowed_env_vars; it expands to nothing", where, name, ref)
				}
			}
			h.Headers = append(h.Headers, Header{Name: name, Value: v.Value})
		}
	}
	return true
}

var envName = lazy.Regexp(`^[A-Za-z_][A-Za-z0-9_]*$`)

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// HeaderProblem says why a header cannot be sent as configured; "" when it
// can.
func HeaderProblem(name, value string) string {
	switch {
	case !headerName().MatchString(name):
		return "is not a valid HTTP header name"
	case strings.ContainsAny(value, "\r\n"):
		return "has a value of more than one line"
	}
	return ""
}

// ValidEnvName reports whether name can be listed in allowed_env_vars.
func ValidEnvName(name string) bool { return envName().MatchString(name) }
