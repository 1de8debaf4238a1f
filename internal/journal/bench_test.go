package journal

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// BenchmarkExecJournal is what the journal adds to one exec: a one-shot
// writer made, one firing held, and Close building, redacting and appending
// it to the file (the process exits after that). `make bench` prints
// it; the goal is at most 0.2 ms (docs/performance.md).
func BenchmarkExecJournal(b *testing.B) {
	path := filepath.Join(b.TempDir(), "logs", FileName)
	f := firing(&testing.T{})
	b.ReportAllocs()
	cpu := cpuTime()
	for b.Loop() {
		w := NewWriter(path, Options{OneShot: true})
		w.Add(f)
		w.Close(10 * time.Second)
	}
	// CPU time (user + system) is what a busy machine cannot inflate the
	// way it inflates the wall: it is the figure held to the goal.
	b.ReportMetric(float64((cpuTime()-cpu).Nanoseconds())/float64(b.N), "cpu-ns/op")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkAdd is what the answer's path pays: queueing a firing.
func BenchmarkAdd(b *testing.B) {
	w := NewWriter(filepath.Join(b.TempDir(), FileName), Options{Queue: 1 << 20})
	f := firing(&testing.T{})
	b.ReportAllocs()
	for b.Loop() {
		w.Add(f)
	}
	b.StopTimer()
	w.Close(time.Minute)
}
