// Benchmarks of outbound webhooks through exec and of the sender, behind the
// figures the README quotes. Each reports its figure with b.ReportMetric.
package outbound_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/noora-hooks/noora-hooks/internal/config"
	"github.com/noora-hooks/noora-hooks/internal/outbound"
	"github.com/noora-hooks/noora-hooks/protocol"
)

var (
	outboundBinOnce sync.Once
	outboundBin     string
	receiverBin     string
	outboundBinErr  error
)

// outboundBinary builds noora-hooks once, without the race detector, so that
// exec is timed as users run it, and the receiver of testdata/receiver.
func outboundBinary(b *testing.B) string {
	outboundBinOnce.Do(func() {
		dir, err := os.MkdirTemp("", "noora-hooks-bench")
		if err != nil {
			outboundBinErr = err
			return
		}
		outboundBin = filepath.Join(dir, "noora-hooks")
		receiverBin = filepath.Join(dir, "receiver")
		for _, args := range [][]string{
			{"build", "-o", outboundBin, "github.com/noora-hooks/noora-hooks"},
			{"build", "-o", receiverBin, "./testdata/receiver"},
		} {
			if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
				outboundBinErr = fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
				return
			}
		}
	})
	if outboundBinErr != nil {
		b.Fatal(outboundBinErr)
	}
	return outboundBin
}

// externalReceiver starts testdata/receiver and returns its url and a
// function that asks it how many deliveries it got.
func externalReceiver(b *testing.B) (string, func() int64) {
	outboundBinary(b)
	cmd := exec.Command(receiverBin)
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	var url string
	if _, err := fmt.Fscanln(out, &url); err != nil {
		b.Fatalf("receiver: %v", err)
	}
	count := func() int64 {
		resp, err := http.Get(url + "/count")
		if err != nil {
			b.Fatalf("receiver: %v", err)
		}
		defer resp.Body.Close()
		var n int64
		if _, err := fmt.Fscanln(resp.Body, &n); err != nil {
			b.Fatalf("receiver count: %v", err)
		}
		return n
	}
	return url, count
}

// countingReceiver answers 200 to everything and counts the requests.
func countingReceiver(b *testing.B) (*httptest.Server, *atomic.Int64) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	b.Cleanup(srv.Close)
	return srv, &n
}

func outboundHome(b *testing.B, cfg string) string {
	home := b.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(cfg), 0o600); err != nil {
		b.Fatal(err)
	}
	return home
}

func runExec(b *testing.B, bin, home string) time.Duration {
	cmd := exec.Command(bin, "exec", "on_session_end")
	cmd.Env = append(os.Environ(), "NOORA_HOME="+home, "NOORA_SAFE_MODE=")
	cmd.Stdin = strings.NewReader(`{"session_id":"s1","completed":true,"platform":"cli"}`)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	took := time.Since(start)
	if err != nil {
		b.Fatalf("exec: %v\n%s", err, out)
	}
	return took
}

// waitSenderGone waits until no sender holds home's lock (it exits once the
// spool has stayed empty for outbound.DefaultIdle).
func waitSenderGone(b *testing.B, home string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	lock, err := outbound.Spool{Dir: outbound.DirOf(home)}.LockSender(ctx, nil)
	if err != nil {
		b.Fatalf("the sender did not exit: %v", err)
	}
	lock.Unlock()
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// BenchmarkExecOutbound measures what 3 outbound targets add to the wall
// time of `noora-hooks exec` (goal: under 2 ms median). Each iteration runs
// exec with no target and with 3 targets, interleaved so that machine noise
// hits both alike; the receiver runs in a process of its own. warm: events come faster than the sender's idle wait, so
// it is still running (the usual case in an agent's tool loop). cold: every
// event finds no sender and starts one.
func BenchmarkExecOutbound(b *testing.B) {
	bin := outboundBinary(b)
	url, got := externalReceiver(b)
	none := outboundHome(b, "hooks: {}\n")
	var cfg strings.Builder
	cfg.WriteString("hooks:\n  outbound:\n")
	for i := range 3 {
		fmt.Fprintf(&cfg, "    - {name: t%d, url: %q, events: [on_session_end], secret: s3cret}\n", i, fmt.Sprintf("%s/t%d", url, i))
	}
	for _, mode := range []string{"warm", "cold"} {
		b.Run(mode, func(b *testing.B) {
			three := outboundHome(b, cfg.String())
			runExec(b, bin, none) // page the binary in
			sent := got()
			if mode == "warm" {
				runExec(b, bin, three) // start the sender
				sent += 3
				for deadline := time.Now().Add(10 * time.Second); got() < sent && time.Now().Before(deadline); {
					time.Sleep(time.Millisecond)
				}
			}
			var base, with []time.Duration
			b.ResetTimer()
			// A warm pair is cheap: take ten per iteration, so that the
			// median of `make bench`'s 20 iterations rests on 200 pairs.
			pairs := 10
			if mode == "cold" {
				pairs = 1
			}
			for range b.N {
				if mode == "cold" {
					b.StopTimer()
					waitSenderGone(b, three)
					b.StartTimer()
				}
				for range pairs {
					base = append(base, runExec(b, bin, none))
					with = append(with, runExec(b, bin, three))
				}
			}
			b.StopTimer()
			waitSenderGone(b, three)
			if n := got() - sent; n != int64(3*len(with)) {
				b.Fatalf("the receiver got %d deliveries, want %d", n, 3*len(with))
			}
			added := make([]time.Duration, len(base))
			for i := range base {
				added[i] = with[i] - base[i]
			}
			b.ReportMetric(ms(median(base)), "ms-exec-0-targets")
			b.ReportMetric(ms(median(with)), "ms-exec-3-targets")
			b.ReportMetric(ms(median(added)), "ms-added-median")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// BenchmarkSenderThroughput measures deliveries per second from the spool to
// a local receiver (goal: at least 1,000/s): 1,000 spooled deliveries per
// iteration, to one target (one at a time, in order) and spread over four.
func BenchmarkSenderThroughput(b *testing.B) {
	const batch = 1000
	srv, got := countingReceiver(b)
	for _, targets := range []int{1, 4} {
		b.Run(fmt.Sprintf("targets=%d", targets), func(b *testing.B) {
			var ts []config.OutboundTarget
			for i := range targets {
				ts = append(ts, config.OutboundTarget{Name: fmt.Sprint(i), URL: fmt.Sprintf("%s/%d", srv.URL, i), Events: []string{"on_session_end"}, Timeout: 10 * time.Second})
			}
			kw, _ := protocol.ParseObject([]byte(`{"session_id":"s1","completed":true,"interrupted":false,"model":"m","platform":"cli"}`))
			var elapsed time.Duration
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				sp := outbound.Spool{Dir: b.TempDir(), Limit: batch}
				for i := range batch {
					d, err := outbound.NewDelivery(ts[i%targets], "on_session_end", kw, "/work", "s3cret", true, "bench", time.Now())
					if err == nil {
						err = sp.Add(d)
					}
					if err != nil {
						b.Fatal(err)
					}
				}
				before := got.Load()
				s := outbound.NewSender(sp)
				lock, err := sp.TryLockSender()
				if err != nil || lock == nil {
					b.Fatal("cannot take the sender lock", err)
				}
				b.StartTimer()
				start := time.Now()
				if err := s.Run(context.Background(), lock, false); err != nil {
					b.Fatal(err)
				}
				elapsed += time.Since(start)
				if n := got.Load() - before; n != batch {
					b.Fatalf("delivered %d, want %d", n, batch)
				}
			}
			b.ReportMetric(float64(batch*b.N)/elapsed.Seconds(), "deliveries/s")
		})
	}
}
