package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/noora-hooks/noora-hooks/cli"
	"github.com/noora-hooks/noora-hooks/internal/hooktest"
)

// TestMain registers noora-hooks and the helper programs that scripts call.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"noora-hooks": noorahooks,
		"fakehook":    fakehook,
		"ptyrun":      ptyrun,
		"fakeplugin":  fakeplugin,
		"envanswer":   envanswer,
		// noora-hooks check hands over to it (cmd/noora-hooks-check).
		cli.CheckProgram: func() { os.Exit(hooktest.Main(os.Args[1:], hooktest.OSEnv())) },
		"stallserver":    stallserver, // main_hardening_test.go
	})
}

// update rewrites the golden files of the scripts that fail a cmp:
// go test -run TestScripts -u (then review the diff).
var update = flag.Bool("u", false, "update the golden files in testdata/scripts")

// TestScripts runs testdata/scripts/*.txtar.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/scripts",
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		UpdateScripts:       *update,
		Condition:           condition, // main_hardening_test.go
		Setup: func(e *testscript.Env) error {
			e.Setenv("NOORA_HOME", filepath.Join(e.WorkDir, "home"))
			e.Setenv("NOORA_ACCEPT_HOOKS", "")
			e.Setenv("NOORA_SAFE_MODE", "")
			examples, err := filepath.Abs("examples")
			if err != nil {
				return err
			}
			e.Setenv("EXAMPLES", examples)
			e.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0")) // -race binaries otherwise sleep 1 s at exit
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"within":  cmdWithin,
			"pgone":   cmdPgone,
			"bigjson": cmdBigJSON,
			"mtime":   cmdMtime,
			"scrub":   cmdScrub,
			"gobin":   cmdGobin,
			"await":   cmdAwait,
			"awaitre": cmdAwaitMatch,

			"deepjson": cmdDeepJSON, "mounttmpfs": cmdMountTmpfs, // main_hardening_test.go

			"waitserve": cmdWaitserve, "waitfile": cmdWaitfile, "http": cmdHTTP, "freeport": cmdFreeport, // main_serve_test.go
			// outbound (main_outbound_test.go)
			"sink": cmdSink, "envsubst": cmdEnvsubst, "killsender": cmdKillSender, "parallel": cmdParallel,
			"otlpspans":    cmdOTLPSpans,    // main_traces_test.go
			"policyserver": cmdPolicyServer, // URL hooks (main_urlhook_test.go)
		},
	})
}

// cmdWithin runs `within DURATION PROGRAM ARGS...` like exec, and fails when
// it takes longer than DURATION. Bounds are generous: they catch hangs, not
// slowness (speed is measured in benchmarks).
func cmdWithin(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: within DURATION PROGRAM [ARGS...]")
	}
	limit, err := time.ParseDuration(args[0])
	ts.Check(err)
	start := time.Now()
	err = ts.Exec(args[1], args[2:]...)
	took := time.Since(start)
	if took > limit {
		ts.Fatalf("%s took %v, more than %v", args[1], took.Round(time.Millisecond), limit)
	}
	switch {
	case err != nil && !neg:
		ts.Fatalf("%s failed: %v", args[1], err)
	case err == nil && neg:
		ts.Fatalf("%s succeeded unexpectedly", args[1])
	}
}

// cmdPgone checks that the process group whose id is in each FILE is gone
// (waiting up to 5 s for the kernel to reap it).
func cmdPgone(ts *testscript.TestScript, neg bool, args []string) {
	for _, file := range args {
		data, err := os.ReadFile(ts.MkAbs(file))
		ts.Check(err)
		pgid, err := strconv.Atoi(strings.TrimSpace(string(data)))
		ts.Check(err)
		deadline := time.Now().Add(5 * time.Second)
		for {
			alive := syscall.Kill(-pgid, 0) == nil
			if !alive {
				break
			}
			if time.Now().After(deadline) {
				ts.Fatalf("process group %d (from %s) is still alive", pgid, file)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// cmdBigJSON writes `bigjson FILE MIB`: a kwargs object of about MIB mebibytes.
func cmdBigJSON(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: bigjson FILE MIB")
	}
	mib, err := strconv.Atoi(args[1])
	ts.Check(err)
	blob := strings.Repeat("x", mib<<20)
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(`{"session_id":"s1","blob":"`+blob+`"}`), 0o644))
}

// fakehook is a hook whose behaviour the script chooses with flags, in this
// order: record ids, read stdin, sleep, write, spawn a grandchild, exit.
func fakehook() {
	fs := flag.NewFlagSet("fakehook", flag.ExitOnError)
	stdout := fs.String("stdout", "", "print this on stdout")
	stderr := fs.String("stderr", "", "print this on stderr")
	exit := fs.Int("exit", 0, "exit with this status")
	sleep := fs.Duration("sleep", 0, "sleep this long before answering")
	ignoreTerm := fs.Bool("ignore-term", false, "ignore SIGTERM")
	noStdin := fs.Bool("no-stdin", false, "never read stdin")
	save := fs.String("save", "", "save stdin to this file")
	pgidFile := fs.String("pgid-file", "", "write the process group id to this file")
	flood := fs.Int64("flood", 0, "write this many bytes to stdout")
	floodErr := fs.Int64("flood-stderr", 0, "write this many bytes to stderr")
	grandchild := fs.Duration("grandchild", 0, "leave a grandchild holding stdout and stderr open for this long")
	envVar := fs.String("env", "", "print the value of this environment variable on stdout")
	_ = fs.Parse(os.Args[1:])

	if *ignoreTerm {
		signal.Ignore(syscall.SIGTERM)
	}
	if *pgidFile != "" {
		writeFile(*pgidFile, strconv.Itoa(syscall.Getpgrp()))
	}
	if !*noStdin {
		data, _ := io.ReadAll(os.Stdin)
		if *save != "" {
			writeFile(*save, string(data))
		}
	}
	time.Sleep(*sleep)
	if *envVar != "" {
		fmt.Println(os.Getenv(*envVar))
	}
	fmt.Fprint(os.Stdout, *stdout)
	fmt.Fprint(os.Stderr, *stderr)
	floodTo(os.Stdout, *flood)
	floodTo(os.Stderr, *floodErr)
	if *grandchild > 0 {
		self, _ := os.Executable()
		cmd := exec.Command(self, "-sleep", grandchild.String(), "-no-stdin")
		cmd.Args[0] = "fakehook"
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "fakehook: grandchild:", err)
			os.Exit(3)
		}
	}
	os.Exit(*exit)
}

func writeFile(name, content string) {
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "fakehook:", err)
		os.Exit(3)
	}
}

func floodTo(w io.Writer, n int64) {
	chunk := []byte(strings.Repeat("x", 64<<10))
	for n > 0 {
		m := int64(len(chunk))
		if n < m {
			m = n
		}
		if _, err := w.Write(chunk[:m]); err != nil {
			return
		}
		n -= m
	}
}
