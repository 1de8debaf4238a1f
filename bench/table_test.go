package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestPercentile(t *testing.T) {
	tests := []struct {
		name    string
		samples []float64
		p, want float64
	}{
		{"The median of an odd count is the middle sample", []float64{3, 1, 2}, 50, 2},
		{"The median of an even count is between the middle two", []float64{4, 1, 3, 2}, 50, 2.5},
		{"The 10th percentile interpolates between ranks", []float64{0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100}, 10, 10},
		{"One sample is every percentile", []float64{7}, 90, 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := percentile(tt.samples, tt.p); got != tt.want {
				t.Errorf("percentile(%v, %v) = %v, want %v", tt.samples, tt.p, got, tt.want)
			}
		})
	}
}

func TestTableSaysWhetherAGoalIsMet(t *testing.T) {
	tab := &table{}
	tab.add("exec", []Figure{
		{Name: "wall", Unit: Seconds, Samples: []float64{0.2, 0.3, 0.25}, Goal: AtMost(0.5)},
		{Name: "rate", Unit: PerSecond, Samples: []float64{900, 950}, Goal: AtLeast(1000), Note: "events answered per second"},
		{Name: "peak", Unit: Bytes, Samples: []float64{16 << 20}, Note: "events answered per second"},
	})
	var b bytes.Buffer
	tab.print(&b)
	out := b.String()
	for _, want := range []string{"250.0 ms", "≤ 500.0 ms: met", "925/s", "≥ 1000/s: MISSED", "16.0 MiB", "rate [1]", "peak [1]", "[1] events answered per second"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if strings.Count(out, "events answered per second") != 1 {
		t.Errorf("a note shared by two figures is printed more than once:\n%s", out)
	}
}
