package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// This file holds what the commands that manage hooks share: list, test,
// approve, revoke and doctor.

// writeJSON prints a report: indented for people reading it in a terminal,
// without HTML escaping (commands hold <, > and &).
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// textTime is how text reports show a time: UTC, to the second.
func textTime(t time.Time) string {
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

// seconds prints a timeout.
func seconds(d time.Duration) string {
	return fmt.Sprintf("%ds", int(d/time.Second))
}

// plural is "1 hook", "2 hooks".
func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
