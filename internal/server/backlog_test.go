//go:build unix

package server

import (
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/noora-hooks/noora-hooks/client"
)

func TestAwaitBacklogReturnsOnceQueuedConnectionsAreAccepted(t *testing.T) {
	l, err := Listen(client.Addr{Network: "unix", Address: filepath.Join(t.TempDir(), "s.sock")}, false)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var conns []net.Conn
	for i := 0; i < 3; i++ {
		c, err := net.Dial("unix", l.Address.Address)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		conns = append(conns, c)
	}
	accepted := make(chan int, 1)
	go func() {
		time.Sleep(300 * time.Millisecond) // the backlog holds 3 until then
		n := 0
		for ; n < len(conns); n++ {
			c, err := l.Accept()
			if err != nil {
				break
			}
			defer c.Close()
		}
		accepted <- n
	}()
	start := time.Now()
	l.AwaitBacklog(30 * time.Second)
	// A lower bound, safe on any machine: the first accept is 300 ms away.
	if took := time.Since(start); took < 250*time.Millisecond {
		t.Fatalf("AwaitBacklog returned after %v, while 3 connections were still queued", took)
	}
	select {
	case n := <-accepted:
		if n != len(conns) {
			t.Fatalf("accepted %d", n)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the connections were never accepted")
	}
}

func TestAwaitBacklogReturnsAtOnceWhenNothingIsQueued(t *testing.T) {
	l, err := Listen(client.Addr{Network: "unix", Address: filepath.Join(t.TempDir(), "s.sock")}, false)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	start := time.Now()
	l.AwaitBacklog(time.Minute)
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("an empty backlog took %v", took)
	}
}
