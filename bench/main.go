// Command bench measures noora-hooks as a host sees it and prints a table
// (`make bench`, or `go run ./bench` from the repository root). It builds
// noora-hooks and a trivial hook once, then runs every scenario of the table
// in scenarios.go, several times each, and prints for each figure the median,
// the spread (10th to 90th percentile) and the goal it is held to.
//
// It needs only Go (the toolchain that runs it) and a Linux /proc for the
// memory figures. It must never report a figure it did not measure: a
// scenario that fails prints its error instead of a row.
package main

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"runtime"
	"strings"
	"time"
)

func main() {
	runs := flag.Int("runs", 0, "repeat each measurement this many times (0: each scenario's default)")
	only := flag.String("only", "", "run only the scenarios whose name matches this regular expression")
	keep := flag.Bool("keep", false, "keep the temporary directory (binaries, homes) for inspection")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: go run ./bench [-runs N] [-only REGEXP] [-keep]\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	var filter *regexp.Regexp
	if *only != "" {
		var err error
		if filter, err = regexp.Compile(*only); err != nil {
			fatalf("-only: %v", err)
		}
	}

	env, err := newEnv(*runs)
	if err != nil {
		fatalf("%v", err)
	}
	if *keep {
		fmt.Fprintf(os.Stderr, "bench: keeping %s\n", env.Dir)
	} else {
		defer env.Close()
	}

	start := time.Now()
	fmt.Printf("noora-hooks benchmarks: %s/%s, %d CPUs, %s, %s\n", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version(), start.Format("2006-01-02 15:04"))
	fmt.Printf("load average at start: %s\n\n", loadAverage())
	t := &table{}
	failed := false
	for _, s := range scenarios {
		if filter != nil && !filter.MatchString(s.Name) {
			continue
		}
		fmt.Fprintf(os.Stderr, "bench: %s ...\n", s.Name)
		began := time.Now()
		figures, err := s.Run(env)
		if err != nil {
			failed = true
			t.fail(s.Name, err)
			continue
		}
		t.add(s.Name, figures)
		fmt.Fprintf(os.Stderr, "bench: %s done in %v\n", s.Name, time.Since(began).Round(100*time.Millisecond))
	}
	t.print(os.Stdout)
	fmt.Printf("\nload average at end: %s; took %v\n", loadAverage(), time.Since(start).Round(time.Second))
	if failed {
		os.Exit(1)
	}
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench: "+format+"\n", args...)
	os.Exit(1)
}

// loadAverage is the first three fields of /proc/loadavg, or "unknown": a
// busy machine makes every figure worse, and the reader should know.
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
