package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/creack/pty"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/noora-hooks/noora-hooks/cli"
)

// noorahooks is the noora-hooks program of the scripts. NOORA_TEST_NOW
// (RFC 3339) fixes the clock so that recorded approval times can be compared
// with golden files; it exists only in this test binary.
func noorahooks() {
	env := cli.OSEnv()
	if now := os.Getenv("NOORA_TEST_NOW"); now != "" {
		t, err := time.Parse(time.RFC3339, now)
		if err != nil {
			fmt.Fprintln(os.Stderr, "NOORA_TEST_NOW:", err)
			os.Exit(3)
		}
		env.Now = func() time.Time { return t }
	}
	os.Exit(cli.Main(os.Args[1:], env))
}

// cmdMtime sets a file's modification time: `mtime FILE 2026-11-28T09:00:00Z`.
func cmdMtime(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: mtime FILE RFC3339-TIME")
	}
	t, err := time.Parse(time.RFC3339, args[1])
	ts.Check(err)
	ts.Check(os.Chtimes(ts.MkAbs(args[0]), t, t))
}

// Durations vary from run to run; golden files write them as N.
var durations = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`\b(elapsed|in) [0-9]+ms\b`), "$1 Nms"},
	{regexp.MustCompile(`"(elapsed_ms|duration_ms)": ?[0-9]+`), `"$1": N`},
}

// cmdScrub writes stdout, stderr or a file to DST with what changes from run
// to run made constant, so that `cmp DST GOLDEN` compares it with a golden
// file and `go test -run TestScripts -u` rewrites that golden file:
// durations become N, and the script's work directory $WORK.
func cmdScrub(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: scrub stdout|stderr|FILE DST")
	}
	got := ts.ReadFile(args[0])
	for _, d := range durations {
		got = d.re.ReplaceAllString(got, d.with)
	}
	if work := ts.Getenv("WORK"); work != "" {
		got = strings.ReplaceAll(got, work, "$WORK")
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(got), 0o666))
}

// ptyrun runs a program on a real pseudo-terminal and answers its questions:
// `ptyrun -answers y,no,EOF PROGRAM ARGS...`. Each time the program asks
// `[y/N]`, the next answer is typed (EOF types Ctrl-D, the end of input). It
// prints what the terminal showed (the program's stdout and stderr, and the
// echo of what was typed; \r\n as \n) and exits with the program's status.
func ptyrun() {
	fs := flag.NewFlagSet("ptyrun", flag.ExitOnError)
	answers := fs.String("answers", "", "comma-separated answers, EOF for Ctrl-D")
	wait := fs.Duration("timeout", 20*time.Second, "give up after this long")
	_ = fs.Parse(os.Args[1:])
	if fs.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: ptyrun [-answers A,B] PROGRAM [ARGS...]")
		os.Exit(3)
	}
	cmd := exec.Command(fs.Arg(0), fs.Args()[1:]...)
	term, err := pty.Start(cmd)
	if err != nil {
		fmt.Fprintln(os.Stderr, "ptyrun:", err)
		os.Exit(3)
	}
	defer term.Close()

	var mu sync.Mutex
	var screen bytes.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 4096)
		for {
			n, err := term.Read(buf)
			mu.Lock()
			screen.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return // EIO once the program and its terminal are gone
			}
		}
	}()
	fail := func(format string, args ...any) {
		_ = cmd.Process.Kill()
		mu.Lock()
		fmt.Fprintf(os.Stderr, "ptyrun: "+format+"\nthe terminal showed:\n%s\n", append(args, screen.String())...)
		mu.Unlock()
		os.Exit(3)
	}

	deadline := time.Now().Add(*wait)
	var list []string
	if *answers != "" {
		list = strings.Split(*answers, ",")
	}
	for i, a := range list {
		for {
			mu.Lock()
			asked := strings.Count(screen.String(), "[y/N] ")
			mu.Unlock()
			if asked > i {
				break
			}
			select {
			case <-done:
				fail("the program ended before question %d", i+1)
			default:
			}
			if time.Now().After(deadline) {
				fail("no question %d within %v", i+1, *wait)
			}
			time.Sleep(10 * time.Millisecond)
		}
		typed := a + "\n"
		if a == "EOF" {
			typed = "\x04" // VEOF at the start of a line: read returns 0
		}
		if _, err := term.WriteString(typed); err != nil {
			fail("type %q: %v", a, err)
		}
	}

	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var werr error
	select {
	case werr = <-exited:
	case <-time.After(time.Until(deadline)):
		fail("the program did not end within %v", *wait)
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		fail("the terminal did not close after the program ended")
	}
	// The terminal turns each \n into \r\n (ONLCR); scripts compare lines.
	os.Stdout.Write(bytes.ReplaceAll(screen.Bytes(), []byte("\r\n"), []byte("\n")))
	var ee *exec.ExitError
	if errors.As(werr, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Exited() {
			os.Exit(ws.ExitStatus())
		}
		os.Exit(3)
	}
	if werr != nil {
		fmt.Fprintln(os.Stderr, "ptyrun:", werr)
		os.Exit(3)
	}
}
