package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// streamDelta is an on_stream_delta as a host streams it, one token a time.
var streamDelta = []byte(`{"session_id":"s1","delta":"token","kind":"text","turn_id":"t1","iteration":1,"model":"m","provider":"p","surface":"cli"}`)

// serveStreamDeltas measures serve taking on_stream_delta events for one
// long-lived stream: true hook, from 1 and 8 clients: each POST is answered
// 202 once the event is queued, and the hook's worker writes it to the hook
// in the background. After every run, the hook's queue must have dropped
// nothing: the worker kept up with the hosts.
func serveStreamDeltas(e *Env) ([]Figure, error) {
	hook := e.Hook()
	home, err := e.Home(fmt.Sprintf("hooks_stream_queue_size: 65536\nhooks:\n  on_stream_delta:\n    - command: %s\n      stream: true\n", hook))
	if err != nil {
		return nil, err
	}
	s, err := e.StartServe(home)
	if err != nil {
		return nil, err
	}
	defer s.Stop()
	want := []byte(`{"event":"on_stream_delta"}` + "\n")
	if _, err := s.Load(8, 300*time.Millisecond, "on_stream_delta", streamDelta, want); err != nil {
		return nil, err
	}
	var figures []Figure
	for _, clients := range []int{1, 8} {
		who := "1 client"
		if clients > 1 {
			who = fmt.Sprintf("%d clients", clients)
		}
		var rates, p50s, p99s []float64
		for i := 0; i < e.Runs(5); i++ {
			r, err := s.Load(clients, 2*time.Second, "on_stream_delta", streamDelta, want)
			if err != nil {
				return nil, err
			}
			rates = append(rates, r.Rate())
			p50s = append(p50s, r.P50.Seconds())
			p99s = append(p99s, r.P99.Seconds())
		}
		rate := Figure{Name: who + ": deltas", Unit: PerSecond, Samples: rates}
		if clients == 8 {
			rate.Goal = AtLeast(10000)
		}
		figures = append(figures, rate,
			Figure{Name: who + ": p50 latency", Unit: Seconds, Samples: p50s},
			Figure{Name: who + ": p99 latency", Unit: Seconds, Samples: p99s, Goal: AtMost(0.005)})
	}
	dropped, err := streamDrops(s, hook)
	if err != nil {
		return nil, err
	}
	figures = append(figures, Figure{Name: "dropped by the stream hook", Unit: Count, Samples: []float64{float64(dropped)}, Goal: AtMost(0),
		Note: "events the hook's queue dropped over all runs: 0 means its worker kept up"})
	return figures, nil
}

// streamDrops waits (up to 30 s) for the stream hook's queue to be empty and
// returns how many events it dropped.
func streamDrops(s *Serve, command string) (uint64, error) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		body, err := s.Client.Hooks(context.Background())
		if err != nil {
			return 0, err
		}
		var listing struct {
			ShellHooks []struct {
				Command string `json:"command"`
				Queue   *struct {
					Pending, Running int
					Dropped          uint64
				} `json:"queue"`
			} `json:"shell_hooks"`
		}
		if err := json.Unmarshal(body, &listing); err != nil {
			return 0, fmt.Errorf("GET /v1/hooks: %v", err)
		}
		for _, h := range listing.ShellHooks {
			if h.Command == command && h.Queue != nil && h.Queue.Pending+h.Queue.Running == 0 {
				return h.Queue.Dropped, nil
			}
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("the stream hook's queue did not empty within 30s: %s", body)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
