package server

import (
	"bufio"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/noora-hooks/noora-hooks/client"
)

// trickle opens a connection that sends the headers of an event with a
// 1,000-byte body, then only 5 bytes of it.
func trickle(t *testing.T, addr client.Addr) net.Conn {
	t.Helper()
	c, err := net.Dial(addr.Network, addr.Address)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := c.Write([]byte("POST /v1/events/pre_llm_call HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{\"a\":")); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestSlowBodiesTakeNoEventSlot(t *testing.T) {
	_, l := start(t, Options{Load: static(&fakeBackend{name: "b"}), MaxEvents: 2, BodyTimeout: time.Minute})
	for range 64 {
		trickle(t, l)
	}
	// Every slot would be held by now if slow bodies took one: this event
	// would wait the whole minute.
	done := make(chan string, 1)
	go func() {
		_, body, err := tryRequest(l, "POST", "/v1/events/pre_llm_call", "{}", nil)
		if err != nil {
			body = err.Error()
		}
		done <- body
	}()
	select {
	case body := <-done:
		if !strings.Contains(body, `"context":"b"`) {
			t.Fatalf("answer %q", body)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("an event waited behind 64 connections that trickle their bodies")
	}
}

func TestABodyThatDoesNotArriveInTimeIsRefused(t *testing.T) {
	var log logBuf
	_, l := start(t, Options{Load: static(&fakeBackend{name: "b"}), BodyTimeout: time.Second, Logf: log.logf})
	c := trickle(t, l)
	_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no answer to a stalled body: %v", err)
	}
	if resp.StatusCode != http.StatusRequestTimeout {
		t.Fatalf("status %d, want 408", resp.StatusCode)
	}
	if !strings.Contains(log.String(), "did not send its body in time (1s, and 1s more per MiB received); refused") {
		t.Fatalf("log %q", log.String())
	}
}

func TestABodyThatKeepsArrivingEarnsMoreTime(t *testing.T) {
	for _, tc := range []struct {
		name   string
		size   int
		chunk  int
		grants int
	}{
		{"less than a MiB earns nothing", 1<<20 - 1, 4096, 0},
		{"each whole MiB earns one grant", 3<<20 + 5, 32 << 10, 3},
		{"a read spanning several MiB earns them all", 5 << 20, 5 << 20, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			grants := 0
			g := &grantingReader{r: strings.NewReader(strings.Repeat("x", tc.size)), grant: func() { grants++ }}
			buf := make([]byte, tc.chunk)
			for {
				if _, err := g.Read(buf); err != nil {
					break
				}
			}
			if grants != tc.grants {
				t.Fatalf("%d grants, want %d", grants, tc.grants)
			}
		})
	}
}
