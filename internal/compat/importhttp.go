package compat

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/noora-hooks/noora-hooks/internal/config"
)

// claudeHTTP imports a Claude Code hook of type "http" (Claude POSTs the
// payload to url, with headers whose $VARS are expanded from
// allowedEnvVars, and reads the response body as the hook's JSON output) as
// a URL hook speaking Claude's dialect. ok is false when it is skipped.
func (im *importer) claudeHTTP(where string, h gjson.Result, e *config.Entry) bool {
	u := member(h, "url")
	raw := strings.TrimSpace(u.String())
	parsed, err := url.Parse(raw)
	if u.Type != gjson.String || raw == "" || err != nil || (parsed.Scheme != "http" && parsed.Scheme != "https") || parsed.Hostname() == "" || !utf8.ValidString(raw) {
		im.warnf(where, "an http hook needs a url starting with https:// or http://; skipped")
		return false
	}
	e.URL, e.Command = raw, raw
	if allowed := member(h, "allowedEnvVars"); allowed.Exists() {
		names, ok := stringList(allowed)
		if !ok {
			im.warnf(where, "allowedEnvVars must be a list of variable names; ignored, so no header expands a variable")
		}
		for _, n := range names {
			if config.ValidEnvName(n) {
				e.AllowedEnvVars = append(e.AllowedEnvVars, n)
			} else {
				im.warnf(where, "allowedEnvVars: %q is not a variable name; dropped", n)
			}
		}
	}
	if headers := member(h, "headers"); headers.Exists() {
		if !headers.IsObject() {
			im.warnf(where, "headers must be an object of header names to values; ignored")
		} else {
			headers.ForEach(func(k, v gjson.Result) bool {
				if v.Type != gjson.String || !utf8.ValidString(k.String()+v.String()) {
					im.warnf(where, "header %q must be a string; ignored", k.String())
					return true
				}
				if why := config.HeaderProblem(k.String(), v.String()); why != "" {
					im.warnf(where, "header %q %s; ignored", k.String(), why)
					return true
				}
				if len(e.Headers) == config.MaxURLHeaders {
					im.warnf(where, "more than %d headers; the rest are ignored", config.MaxURLHeaders)
					return false
				}
				value := v.String()
				// Claude Code expands only the variables allowedEnvVars
				// lists; the others become "", so they are dropped here.
				for _, ref := range config.HeaderEnvRefs(value) {
					if !slices.Contains(e.AllowedEnvVars, ref) {
						im.warnf(where, "header %s names $%s, which allowedEnvVars does not list: Claude Code sends it empty, and so does noora-hooks", k.String(), ref)
					}
				}
				value = keepAllowed(value, e.AllowedEnvVars)
				e.Headers = append(e.Headers, config.Header{Name: k.String(), Value: value})
				return true
			})
		}
	}
	h.ForEach(func(k, _ gjson.Result) bool {
		switch k.String() {
		case "type", "url", "headers", "allowedEnvVars", "timeout":
		case "async", "once", "statusMessage":
			// warned about with command hooks' keys
		default:
			im.warnf(where, "%q is not something noora-hooks knows; not carried over", k.String())
		}
		return true
	})
	return true
}

// httpNote is the comment above an imported http hook.
func httpNote(e config.Entry) string {
	return fmt.Sprintf("Claude Code http hook: POSTs Claude's payload to %s; the response is read by Claude's rules", e.URL)
}

// keepAllowed removes the variable references of a header value that
// allowed does not list (they expand to nothing), keeping the others.
func keepAllowed(value string, allowed []string) string {
	return config.ExpandHeader(value, allowed, func(name string) string { return "${" + name + "}" })
}
