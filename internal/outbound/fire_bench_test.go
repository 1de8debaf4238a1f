package outbound

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/noora-hooks/noora-hooks/internal/dispatch"

	"github.com/noora-hooks/noora-hooks/internal/config"
	"github.com/noora-hooks/noora-hooks/protocol"
)

// BenchmarkFire is the exec-side work of an event with 3 targets, in
// process: build, sign and spool 3 deliveries, and find the sender running
// (its lock is held, so nothing is delivered and no sender starts). With a
// backlog, 900 deliveries already wait (a dead endpoint): the cost must not
// grow with it.
func BenchmarkFire(b *testing.B) {
	for _, backlog := range []int{0, 900} {
		b.Run(fmt.Sprintf("backlog=%d", backlog), func(b *testing.B) {
			home := b.TempDir()
			var ts []config.OutboundTarget
			for i := range 3 {
				ts = append(ts, config.OutboundTarget{Name: fmt.Sprint(i), URL: fmt.Sprintf("https://example.com/%d", i), Events: []string{"on_session_end"}, Timeout: 10 * time.Second, Secret: "s"})
			}
			src := &Source{Home: home, Spool: Spool{Dir: DirOf(home), Limit: 1000}, Targets: ts, Version: "bench", Now: time.Now}
			src.StartSender = func(env []string) error { return EnsureSender(home, src.Spool, env) }
			lock, err := src.Spool.TryLockSender()
			if err != nil || lock == nil {
				b.Fatal(err)
			}
			defer lock.Unlock()
			ev, _ := protocol.Lookup("on_session_end")
			kw, _ := protocol.ParseObject([]byte(`{"session_id":"s1","completed":true}`))
			for range backlog {
				d, _ := NewDelivery(ts[0], "on_session_end", kw, "/", "s", true, "bench", time.Unix(1, 0))
				if err := src.Spool.Add(d); err != nil {
					b.Fatal(err)
				}
			}
			d := dispatch.Dispatcher{Sources: []dispatch.Source{src}}
			for b.Loop() {
				rep := d.Fire(context.Background(), dispatch.Call{Event: ev, Kwargs: kw, Cwd: "/"})
				if w := rep.Warnings(); len(w) > 0 {
					b.Fatal(w)
				}
				b.StopTimer()
				pending, _ := src.Spool.Pending()
				for _, e := range pending[backlog:] { // the backlog sorts first
					if err := src.Spool.Remove(e); err != nil {
						b.Fatal(err)
					}
				}
				b.StartTimer()
			}
		})
	}
}
