package main

import "fmt"

// execJournal measures what the run journal costs exec: the floor (no hook)
// and one trivial hook, each with `journal: false` and with the journal on,
// interleaved run by run so that the machine's load hits both alike. The
// journal is written after the answer, by a goroutine; the figure is the
// whole process's wall, which is what a host waiting for exec sees.
func execJournal(e *Env) ([]Figure, error) {
	var figs []Figure
	for _, c := range []struct {
		name, hooks string
	}{
		{"no hook", "hooks: {}\n"},
		{"one trivial hook", fmt.Sprintf("hooks:\n  pre_tool_call:\n    - command: %s\n", e.Hook())},
	} {
		off, err := e.Home("journal: false\n" + c.hooks)
		if err != nil {
			return nil, err
		}
		on, err := e.Home(c.hooks)
		if err != nil {
			return nil, err
		}
		n := e.Runs(60)
		var offWalls, onWalls, deltas []float64
		for i := 0; i < n; i++ {
			a, err := e.Exec(off, "pre_tool_call", ToolPayload)
			if err != nil {
				return nil, err
			}
			b, err := e.Exec(on, "pre_tool_call", ToolPayload)
			if err != nil {
				return nil, err
			}
			offWalls, onWalls = append(offWalls, a.Wall.Seconds()), append(onWalls, b.Wall.Seconds())
			deltas = append(deltas, b.Wall.Seconds()-a.Wall.Seconds())
		}
		offFig := Figure{Name: c.name + ", journal off", Unit: Seconds, Samples: offWalls}
		onFig := Figure{Name: c.name + ", journal on", Unit: Seconds, Samples: onWalls}
		figs = append(figs, offFig, onFig, Figure{
			Name: c.name + ", on minus off", Unit: Seconds, Samples: []float64{onFig.Median() - offFig.Median()}, Goal: AtMost(0.0002),
			Note: "difference of the medians; per-run differences spread " + format(Seconds, percentile(deltas, 10)) + " - " + format(Seconds, percentile(deltas, 90)),
		})
	}
	return figs, nil
}
