package outbound

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"time"
)

// Failure is the last failed attempt to one target url, for `outbound status`.
type Failure struct {
	Target     string    `json:"target"`
	URL        string    `json:"url"`
	Event      string    `json:"event"`
	DeliveryID string    `json:"delivery_id"`
	At         time.Time `json:"at"`
	Attempt    int       `json:"attempt"`
	Error      string    `json:"error"`
	GaveUp     bool      `json:"gave_up"`
}

// Bounds of failures.json: one entry per url, the most recent maxFailures.
const (
	maxFailures     = 100
	maxFailuresFile = 1 << 20
)

// Failures reads failures.json, keyed by url. A missing or broken file reads
// as empty: it is a convenience for status, never needed to deliver.
func (s Spool) Failures() map[string]Failure {
	out := map[string]Failure{}
	f, err := os.Open(s.failuresFile())
	if err != nil {
		return out
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFailuresFile))
	if err != nil {
		return out
	}
	var list []Failure
	if json.Unmarshal(data, &list) != nil {
		return out
	}
	for _, fl := range list {
		out[fl.URL] = fl
	}
	return out
}

// recordFailure replaces the url's entry, atomically. Only the sender that
// holds the sender lock writes the file.
func (s Spool) recordFailure(fl Failure) error {
	all := s.Failures()
	all[fl.URL] = fl
	list := make([]Failure, 0, len(all))
	for _, v := range all {
		list = append(list, v)
	}
	slices.SortFunc(list, func(a, b Failure) int { return b.At.Compare(a.At) })
	if len(list) > maxFailures {
		list = list[:maxFailures]
	}
	data, _ := json.MarshalIndent(list, "", "  ")
	tmp := s.failuresFile() + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("record failure: %w", err)
	}
	if err := os.Rename(tmp, s.failuresFile()); err != nil {
		return errors.Join(fmt.Errorf("record failure: %w", err), os.Remove(tmp))
	}
	return nil
}
