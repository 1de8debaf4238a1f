package outbound

import (
	"time"

	"github.com/noora-hooks/noora-hooks/internal/config"
)

// SpoolStatus is what `outbound status` reports: the spool, its sender, and the
// pending deliveries of each target.
type SpoolStatus struct {
	Spool     string `json:"spool"`
	Limit     int    `json:"limit"`
	Pending   int    `json:"pending"`
	SenderPID *int   `json:"sender_pid"` // null when no sender runs
	Corrupt   int    `json:"corrupt"`
	// Targets: the configured ones first, in config order, then those that
	// only the spool still knows.
	Targets []*TargetStatus `json:"targets"`
	// Unspooled: the last deliveries that could not be spooled (a full or
	// read-only disk), and how many there were in all.
	Unspooled      []Unspooled `json:"unspooled"`
	UnspooledTotal int         `json:"unspooled_total"`
}

// TargetStatus is one target's share of the spool.
type TargetStatus struct {
	Name        string     `json:"name"`
	URL         string     `json:"url"`
	Configured  bool       `json:"configured"`
	Pending     int        `json:"pending"`
	Oldest      *time.Time `json:"oldest"`
	OldestAgeS  *float64   `json:"oldest_age_s"`
	LastFailure *Failure   `json:"last_failure"`
}

// StatusOf groups what sp holds by target (targets are told apart by URL,
// Key), as of now.
func StatusOf(sp Spool, targets []config.OutboundTarget, now time.Time) (SpoolStatus, error) {
	entries, err := sp.Pending()
	if err != nil {
		return SpoolStatus{}, err
	}
	st := SpoolStatus{Spool: sp.Dir, Limit: sp.limit(), Corrupt: sp.Corrupt(), Targets: []*TargetStatus{}}
	if pid := sp.SenderPID(); pid > 0 {
		st.SenderPID = &pid
	}
	byKey := map[string]*TargetStatus{}
	for _, t := range targets {
		k := Key(t.URL)
		if byKey[k] == nil {
			byKey[k] = &TargetStatus{Name: t.Name, URL: t.URL, Configured: true}
			st.Targets = append(st.Targets, byKey[k])
		}
	}
	count := func(key, name, url string, created time.Time) {
		ts := byKey[key]
		if ts == nil {
			ts = &TargetStatus{Name: name, URL: url}
			byKey[key] = ts
			st.Targets = append(st.Targets, ts)
		}
		ts.Pending++
		if ts.Oldest == nil && !created.IsZero() {
			created = created.UTC()
			age := now.Sub(created).Seconds()
			ts.Oldest, ts.OldestAgeS = &created, &age
		}
	}
	for _, e := range entries {
		st.Pending += e.Count
		if !e.Event && byKey[e.Key] != nil {
			count(e.Key, "", "", e.Created) // its name says which target
			continue
		}
		// An event file holds several targets' deliveries; a target no
		// longer configured is named only inside.
		ds, err := sp.Contents(e)
		if err != nil {
			count("unreadable "+e.Name, "(unreadable: "+e.Name+")", "", time.Time{})
			continue
		}
		for _, d := range ds {
			count(Key(d.URL), d.Target, d.URL, e.Created)
		}
	}
	st.Unspooled, st.UnspooledTotal = sp.Unspooled()
	if st.Unspooled == nil {
		st.Unspooled = []Unspooled{}
	}
	failures := sp.Failures()
	for _, ts := range st.Targets {
		if f, ok := failures[ts.URL]; ok {
			ts.LastFailure = &f
		}
	}
	return st, nil
}
