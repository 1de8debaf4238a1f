package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/noora-hooks/noora-hooks/internal/engine"
)

// listedTarget is one outbound target in `list --json` (docs/cli.md).
type listedTarget struct {
	Name      string   `json:"name"`
	URL       string   `json:"url"`
	Events    []string `json:"events"`
	Matcher   *string  `json:"matcher"`
	TimeoutS  int      `json:"timeout_s"`
	Signed    bool     `json:"signed"`
	SecretEnv string   `json:"secret_env,omitempty"`
}

// listOutbound is the outbound section of `list` (SPEC §6): name, url,
// events, matcher, timeout, and signed or UNSIGNED, as the sender would sign
// right now (an empty secret_env variable means unsigned).
func listOutbound(eng *engine.Engine) (listed, error) {
	items := []listedTarget{}
	for _, t := range eng.Config.Outbound {
		it := listedTarget{
			Name: t.Name, URL: t.URL, Events: t.Events, TimeoutS: int(t.Timeout.Seconds()),
			Signed: t.Signed(eng.Getenv), SecretEnv: t.SecretEnv,
		}
		if t.Matcher != nil {
			m := t.Matcher.Source
			it.Matcher = &m
		}
		items = append(items, it)
	}
	return listed{Items: items, Count: len(items), Text: func(w io.Writer) {
		fmt.Fprintf(w, "Outbound webhooks (%d):\n", len(items))
		for _, it := range items {
			fmt.Fprintf(w, "\n  %s\n", it.Name)
			fmt.Fprintf(w, "    url:      %s\n", it.URL)
			fmt.Fprintf(w, "    events:   %s\n", strings.Join(it.Events, ", "))
			if it.Matcher != nil {
				fmt.Fprintf(w, "    matcher:  %s\n", *it.Matcher)
			}
			fmt.Fprintf(w, "    timeout:  %ds\n", it.TimeoutS)
			switch {
			case it.Signed:
				fmt.Fprintf(w, "    signed:   yes (HMAC-SHA256)\n")
			case it.SecretEnv != "":
				fmt.Fprintf(w, "    signed:   UNSIGNED: $%s is empty\n", it.SecretEnv)
			default:
				fmt.Fprintf(w, "    signed:   UNSIGNED: no secret\n")
			}
		}
	}}, nil
}
