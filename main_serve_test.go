package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/noora-hooks/noora-hooks/client"
)

// envanswer is a hook that answers pre_llm_call with the value of one
// environment variable as its context: `envanswer VAR`. It shows which
// process ran a hook (serve's environment, or exec's).
func envanswer() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: envanswer VAR")
		os.Exit(3)
	}
	_, _ = io.Copy(io.Discard, os.Stdin)
	b, _ := json.Marshal(map[string]string{"context": os.Getenv(os.Args[1])})
	os.Stdout.Write(b)
}

// cmdWaitserve waits (up to 10 s) until a serve answers GET /healthz at ADDR.
func cmdWaitserve(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 || neg {
		ts.Fatalf("usage: waitserve ADDR")
	}
	addr, err := client.ParseAddr(args[0])
	ts.Check(err)
	c := client.New(addr, "")
	defer c.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := c.Health(ctx)
		cancel()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("no serve answers at %s: %v", addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// cmdFreeport sets VAR to a loopback TCP port that was free a moment ago.
func cmdFreeport(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 || neg {
		ts.Fatalf("usage: freeport VAR")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	_, port, _ := net.SplitHostPort(l.Addr().String())
	l.Close()
	ts.Setenv(args[0], port)
}

// cmdWaitfile waits (up to 10 s) until FILE exists.
func cmdWaitfile(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 || neg {
		ts.Fatalf("usage: waitfile FILE")
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Stat(ts.MkAbs(args[0])); err == nil {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("%s did not appear within 10s", args[0])
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// cmdHTTP sends one request to a serve:
//
//	http [-token T] [-fill N] [-H 'Key: value']... METHOD ADDR PATH [BODYFILE]
//
// -fill sends N bytes of "x" as the body.
// The answer's body goes to stdout; its warnings (X-Noora-Warning) go to
// stderr as exec prints them. A status other than 200 adds "status N" to
// stderr, and fails the command unless it is 202.
func cmdHTTP(ts *testscript.TestScript, neg bool, args []string) {
	fs := flag.NewFlagSet("http", flag.ContinueOnError)
	token := fs.String("token", "", "bearer token")
	fill := fs.Int("fill", 0, "send this many bytes of 'x' as the body")
	var headers headerFlags
	fs.Var(&headers, "H", "a header, Key: value")
	if err := fs.Parse(args); err != nil || fs.NArg() < 3 || fs.NArg() > 4 {
		ts.Fatalf("usage: http [-token T] [-fill N] [-H 'Key: value']... METHOD ADDR PATH [BODYFILE]")
	}
	method, path := fs.Arg(0), fs.Arg(2)
	addr, err := client.ParseAddr(fs.Arg(1))
	ts.Check(err)
	var body io.Reader = http.NoBody
	if *fill > 0 {
		body = bytes.NewReader(bytes.Repeat([]byte("x"), *fill))
	}
	if fs.NArg() == 4 {
		data, err := os.ReadFile(ts.MkAbs(fs.Arg(3)))
		ts.Check(err)
		body = bytes.NewReader(data)
	}
	host := "noora-hooks"
	if addr.Network == "tcp" {
		host = addr.Address
	}
	req, err := http.NewRequest(method, "http://"+host+path, body)
	ts.Check(err)
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ":")
		req.Header.Set(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	if *token != "" {
		req.Header.Set("Authorization", "Bearer "+*token)
	}
	hc := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, addr.Network, addr.Address)
		},
	}}
	resp, err := hc.Do(req)
	ts.Check(err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	ts.Check(err)
	ts.Stdout().Write(data)
	for _, w := range resp.Header.Values(client.HeaderWarning) {
		var msg string
		ts.Check(json.Unmarshal([]byte(w), &msg))
		fmt.Fprintf(ts.Stderr(), "noora-hooks: warning: %s\n", msg)
	}
	// 202 Accepted (a queued streaming event) is an answer too.
	ok := resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusAccepted
	if resp.StatusCode != http.StatusOK {
		fmt.Fprintf(ts.Stderr(), "status %d\n", resp.StatusCode)
	}
	switch {
	case !ok && !neg:
		ts.Fatalf("%s %s: status %d: %s", method, path, resp.StatusCode, data)
	case ok && neg:
		ts.Fatalf("%s %s: status %d, want a failure", method, path, resp.StatusCode)
	}
}

type headerFlags []string

func (h *headerFlags) String() string     { return strings.Join(*h, ", ") }
func (h *headerFlags) Set(v string) error { *h = append(*h, v); return nil }

// TestServeDrainsOnSIGTERM checks SIGTERM (which testscript's kill cannot
// send): the event in flight is answered, then serve exits 0 and removes its
// socket.
func TestServeDrainsOnSIGTERM(t *testing.T) {
	home := shortDir(t)
	work := t.TempDir()
	started := filepath.Join(work, "started")
	config := fmt.Sprintf("hooks:\n  pre_llm_call:\n    - command: fakehook -save %s -sleep 1s -stdout '{\"context\":\"slow\"}'\n", started)
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	serve := exec.Command("noora-hooks", "serve", "--accept-hooks")
	serve.Dir = work
	serve.Env = append(os.Environ(), "NOORA_HOME="+home)
	serve.Stderr = &stderr
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	defer serve.Process.Kill()

	sock := client.Addr{Network: "unix", Address: filepath.Join(home, "noora-hooks.sock")}
	c := client.New(sock, "")
	deadline := time.Now().Add(10 * time.Second)
	for c.Health(context.Background()) != nil {
		if time.Now().After(deadline) {
			t.Fatalf("serve did not come up: %s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	type result struct {
		answer client.Answer
		err    error
	}
	done := make(chan result, 1)
	go func() {
		a, err := c.Fire(context.Background(), "pre_llm_call", []byte(`{}`), client.FireOptions{})
		done <- result{a, err}
	}()
	for {
		if _, err := os.Stat(started); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the hook never started: %s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := serve.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-done:
		if r.err != nil || string(r.answer.Body) != `{"event":"pre_llm_call","context":"slow"}`+"\n" {
			t.Errorf("the event in flight got %q, %v", r.answer.Body, r.err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the event in flight was not answered")
	}
	waited := make(chan error, 1)
	go func() { waited <- serve.Wait() }()
	select {
	case err := <-waited:
		if err != nil {
			t.Errorf("serve exited with %v after SIGTERM; log:\n%s", err, stderr.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not exit after SIGTERM")
	}
	if !strings.Contains(stderr.String(), "stopped after 1 events") {
		t.Errorf("log:\n%s", stderr.String())
	}
	if _, err := os.Lstat(sock.Address); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the socket is still there: %v", err)
	}
}

// shortDir is a temp dir whose path is short enough to hold a socket.
func shortDir(t *testing.T) string {
	dir, err := os.MkdirTemp("", "nh")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}
