package main

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"text/tabwriter"
)

// Unit says how a figure's samples read.
type Unit int

const (
	Seconds   Unit = iota // samples in seconds, printed as ms or s
	PerSecond             // events per second
	Bytes                 // printed as MiB
	Ratio                 // printed as ×
	Count                 // a whole number of things
)

// Figure is one measured quantity of a scenario: its samples (one per run)
// and, optionally, the goal the median is held to.
type Figure struct {
	Name    string
	Unit    Unit
	Samples []float64
	// Goal, when set, says whether the median meets it, and how it reads
	// ("≤ 2.0×").
	Goal *Goal
	// Note is printed after the figure (what was measured, how).
	Note string
}

// Goal is a bound on a figure's median.
type Goal struct {
	Max   bool    // true: median ≤ Bound; false: median ≥ Bound
	Bound float64 // in the figure's unit
}

// AtMost and AtLeast make goals.
func AtMost(b float64) *Goal  { return &Goal{Max: true, Bound: b} }
func AtLeast(b float64) *Goal { return &Goal{Max: false, Bound: b} }

// Median of the samples.
func (f Figure) Median() float64 { return percentile(f.Samples, 50) }

func percentile(samples []float64, p float64) float64 {
	if len(samples) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), samples...)
	sort.Float64s(s)
	// Linear interpolation between closest ranks.
	rank := p / 100 * float64(len(s)-1)
	lo := int(math.Floor(rank))
	hi := int(math.Ceil(rank))
	return s[lo] + (s[hi]-s[lo])*(rank-float64(lo))
}

type row struct {
	scenario string
	figure   Figure
	err      error
}

type table struct{ rows []row }

func (t *table) add(scenario string, figures []Figure) {
	for _, f := range figures {
		t.rows = append(t.rows, row{scenario: scenario, figure: f})
	}
}

func (t *table) fail(scenario string, err error) {
	t.rows = append(t.rows, row{scenario: scenario, err: err})
}

func (t *table) print(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "scenario\tfigure\tmedian\tspread (p10-p90)\truns\tgoal\t")
	fmt.Fprintln(tw, "--------\t------\t------\t----------------\t----\t----\t")
	last := ""
	var notes []string
	noteIndex := map[string]int{} // a note said once, referred to by number
	for _, r := range t.rows {
		name := r.scenario
		if name == last {
			name = ""
		}
		last = r.scenario
		if r.err != nil {
			fmt.Fprintf(tw, "%s\tFAILED: %v\t\t\t\t\t\n", name, r.err)
			continue
		}
		f := r.figure
		med := f.Median()
		spread := ""
		if len(f.Samples) > 1 {
			spread = format(f.Unit, percentile(f.Samples, 10)) + " - " + format(f.Unit, percentile(f.Samples, 90))
		}
		goal := ""
		if f.Goal != nil {
			op, ok := "≥", med >= f.Goal.Bound
			if f.Goal.Max {
				op, ok = "≤", med <= f.Goal.Bound
			}
			verdict := "met"
			if !ok {
				verdict = "MISSED"
			}
			goal = fmt.Sprintf("%s %s: %s", op, format(f.Unit, f.Goal.Bound), verdict)
		}
		label := f.Name
		if f.Note != "" {
			n, ok := noteIndex[f.Note]
			if !ok {
				notes = append(notes, fmt.Sprintf("[%d] %s", len(notes)+1, f.Note))
				n = len(notes)
				noteIndex[f.Note] = n
			}
			label += fmt.Sprintf(" [%d]", n)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t\n", name, label, format(f.Unit, med), spread, len(f.Samples), goal)
	}
	tw.Flush()
	if len(notes) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, strings.Join(notes, "\n"))
	}
}

func format(u Unit, v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	switch u {
	case Seconds:
		if v >= 1 {
			return fmt.Sprintf("%.2f s", v)
		}
		if v >= 0.01 {
			return fmt.Sprintf("%.1f ms", v*1e3)
		}
		return fmt.Sprintf("%.2f ms", v*1e3)
	case PerSecond:
		return fmt.Sprintf("%.0f/s", v)
	case Bytes:
		return fmt.Sprintf("%.1f MiB", v/(1<<20))
	case Ratio:
		return fmt.Sprintf("%.2fx", v)
	case Count:
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprint(v)
}
