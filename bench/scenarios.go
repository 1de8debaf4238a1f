package main

import (
	"fmt"
	"strings"
	"time"
)

// Scenario is one row group of the table: it measures with Env and returns
// its figures, each with one sample per run.
type Scenario struct {
	Name string
	Run  func(e *Env) ([]Figure, error)
}

// scenarios is the table `make bench` runs, in order. To add one (outbound:
// exec with 3 targets vs none; plugins: a Python plugin vs a shell hook),
// write its function in a file of its own beside this one and add a line here.
var scenarios = []Scenario{
	{"exec, one trivial hook vs spawning it", execTrivialVsDirect},
	{"exec, 16 hooks sleeping 200 ms", execSixteenSleepers},
	{"exec, no hooks", execNoHooks},
	{"exec, run journal on vs off", execJournal}, // journal.go
	{"exec, a hook flooding 200 MiB", execFlood},
	{"serve, one trivial hook", serveLoad(true)},
	{"serve, no hooks", serveLoad(false)},
	{"serve, on_stream_delta to a stream hook", serveStreamDeltas}, // stream.go
}

// execTrivialVsDirect compares exec with one trivial hook against spawning
// that hook directly with the same payload, interleaved run by run so that a
// change in the machine's load hits both alike.
func execTrivialVsDirect(e *Env) ([]Figure, error) {
	home, err := e.Home(fmt.Sprintf("hooks:\n  pre_tool_call:\n    - command: %s\n", e.Hook()))
	if err != nil {
		return nil, err
	}
	n := e.Runs(40)
	viaExec, direct, err := execAndSpawn(e, home, n)
	if err != nil {
		return nil, err
	}
	ratios := make([]float64, n)
	for i := range ratios {
		ratios[i] = viaExec[i] / direct[i]
	}
	execFig := Figure{Name: "exec wall", Unit: Seconds, Samples: viaExec}
	directFig := Figure{Name: "direct spawn wall", Unit: Seconds, Samples: direct}
	return []Figure{
		execFig,
		directFig,
		{Name: "ratio of medians", Unit: Ratio, Samples: []float64{execFig.Median() / directFig.Median()}, Goal: AtMost(2.0),
			Note: "exec's median wall over the direct spawn's, same runs; the spread of per-run ratios was " +
				format(Ratio, percentile(ratios, 10)) + " - " + format(Ratio, percentile(ratios, 90))},
	}, nil
}

// execSixteenSleepers is the wall time of one exec whose 16 hooks each sleep
// 200 ms: they run at once, so it is one sleep, not sixteen.
func execSixteenSleepers(e *Env) ([]Figure, error) {
	home, err := e.Home(sixteen(e))
	if err != nil {
		return nil, err
	}
	walls, err := execWalls(e, home, e.Runs(7))
	if err != nil {
		return nil, err
	}
	return []Figure{{Name: "exec wall", Unit: Seconds, Samples: walls, Goal: AtMost(0.5)}}, nil
}

// sixteen is a config of 16 distinct hooks that sleep 200 ms.
func sixteen(e *Env) string {
	var b strings.Builder
	b.WriteString("hooks:\n  pre_tool_call:\n")
	for i := 0; i < 16; i++ {
		// Distinct command lines: duplicates run once (SPEC §2).
		fmt.Fprintf(&b, "    - command: %s\n", e.Hook("sleep", "200ms", "tag", fmt.Sprint(i)))
	}
	return b.String()
}

// execNoHooks is the floor of exec (start, read config, answer) side by side
// with the floor of any Go program: benchhook, a static Go binary that reads
// its stdin and answers {}, interleaved run by run.
func execNoHooks(e *Env) ([]Figure, error) {
	home, err := e.Home("hooks: {}\n")
	if err != nil {
		return nil, err
	}
	walls, hello, err := execAndSpawn(e, home, e.Runs(60))
	if err != nil {
		return nil, err
	}
	execFig := Figure{Name: "exec wall", Unit: Seconds, Samples: walls}
	helloFig := Figure{Name: "static Go hello-world wall", Unit: Seconds, Samples: hello}
	return []Figure{
		execFig,
		helloFig,
		{Name: "exec over hello-world", Unit: Seconds, Samples: []float64{execFig.Median() - helloFig.Median()}, Goal: AtMost(0.001),
			Note: "difference of the medians, same runs"},
	}, nil
}

// execAndSpawn runs exec pre_tool_call in home and a direct spawn of
// benchhook (a static Go program that answers {}), interleaved run by run so
// that a change in the machine's load hits both alike, n times each.
func execAndSpawn(e *Env, home string, n int) (viaExec, direct []float64, err error) {
	for i := 0; i < n; i++ {
		r, err := e.Exec(home, "pre_tool_call", ToolPayload)
		if err != nil {
			return nil, nil, err
		}
		d, err := e.Spawn(home, ToolPayload, e.HookBin)
		if err != nil {
			return nil, nil, err
		}
		viaExec = append(viaExec, r.Wall.Seconds())
		direct = append(direct, d.Seconds())
	}
	return viaExec, direct, nil
}

// execWalls runs exec pre_tool_call n times in home and returns the walls.
func execWalls(e *Env, home string, n int) ([]float64, error) {
	var walls []float64
	for i := 0; i < n; i++ {
		r, err := e.Exec(home, "pre_tool_call", ToolPayload)
		if err != nil {
			return nil, err
		}
		walls = append(walls, r.Wall.Seconds())
	}
	return walls, nil
}

// execFlood runs a hook that writes 200 MiB to stdout: exec keeps 1 MiB and
// reads the rest away, so its memory must stay small.
func execFlood(e *Env) ([]Figure, error) {
	home, err := e.Home(fmt.Sprintf("hooks:\n  on_session_end:\n    - command: %s flood %d\n", e.HookBin, 200<<20))
	if err != nil {
		return nil, err
	}
	var rss, walls []float64
	for i := 0; i < e.Runs(5); i++ {
		r, err := e.Exec(home, "on_session_end", []byte(`{"session_id":"s1"}`))
		if err != nil {
			return nil, err
		}
		rss = append(rss, float64(r.MaxRSS))
		walls = append(walls, r.Wall.Seconds())
	}
	return []Figure{
		{Name: "peak memory", Unit: Bytes, Samples: rss, Note: "maxrss from wait4: the peak of exec and of the hook it waited for"},
		{Name: "exec wall", Unit: Seconds, Samples: walls},
	}, nil
}

// serveLoad measures serve on its socket with 1 and 8 clients, each firing
// pre_tool_call and waiting for the answer before the next.
func serveLoad(withHook bool) func(e *Env) ([]Figure, error) {
	return func(e *Env) ([]Figure, error) {
		cfg, want := "hooks: {}\n", `{"event":"pre_tool_call"}`+"\n"
		rateGoal8, p99Goal := AtLeast(20000), (*Goal)(nil)
		if withHook {
			cfg = fmt.Sprintf("hooks:\n  pre_tool_call:\n    - command: %s\n", e.Hook())
			rateGoal8, p99Goal = AtLeast(1000), AtMost(0.020)
		}
		home, err := e.Home(cfg)
		if err != nil {
			return nil, err
		}
		s, err := e.StartServe(home)
		if err != nil {
			return nil, err
		}
		defer s.Stop()
		// Warm up: connections, page cache, the first reload check.
		if _, err := s.Load(8, 300*time.Millisecond, "pre_tool_call", ToolPayload, []byte(want)); err != nil {
			return nil, err
		}
		var figures []Figure
		for _, clients := range []int{1, 8} {
			who := "1 client"
			if clients > 1 {
				who = fmt.Sprintf("%d clients", clients)
			}
			var rates, p50s, p99s, vsDirect []float64
			for i := 0; i < e.Runs(5); i++ {
				// One client against spawning the hook directly, side by
				// side: what a host gains by keeping serve warm.
				var direct []float64
				for j := 0; withHook && clients == 1 && j < 15; j++ {
					d, err := e.Spawn(s.Cwd, ToolPayload, e.HookBin)
					if err != nil {
						return nil, err
					}
					direct = append(direct, d.Seconds())
				}
				r, err := s.Load(clients, 2*time.Second, "pre_tool_call", ToolPayload, []byte(want))
				if err != nil {
					return nil, err
				}
				rates = append(rates, r.Rate())
				p50s = append(p50s, r.P50.Seconds())
				p99s = append(p99s, r.P99.Seconds())
				if len(direct) > 0 {
					vsDirect = append(vsDirect, r.P50.Seconds()/percentile(direct, 50))
				}
			}
			rate := Figure{Name: who + ": events", Unit: PerSecond, Samples: rates}
			p99 := Figure{Name: who + ": p99 latency", Unit: Seconds, Samples: p99s}
			if clients == 8 {
				rate.Goal, p99.Goal = rateGoal8, p99Goal
			}
			figures = append(figures, rate,
				Figure{Name: who + ": p50 latency", Unit: Seconds, Samples: p50s},
				p99)
			if len(vsDirect) > 0 {
				figures = append(figures, Figure{Name: "1 client: p50 over direct spawn", Unit: Ratio, Samples: vsDirect,
					Note: "each run's p50 latency through serve over the median of 15 direct spawns of the hook just before it"})
			}
		}
		peak, err := s.PeakRSS()
		if err != nil {
			return nil, err
		}
		figures = append(figures, Figure{Name: "serve peak memory", Unit: Bytes, Samples: []float64{float64(peak)},
			Note: "VmHWM of serve after every run above (its own memory; hooks are other processes)"})
		return figures, nil
	}
}
