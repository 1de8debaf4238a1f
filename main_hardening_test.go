package main

import (
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdDeepJSON writes `deepjson FILE DEPTH TEMPLATE`: TEMPLATE with its one @
// replaced by DEPTH nested empty arrays, to build depth bombs without
// shipping them in the archive.
func cmdDeepJSON(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 || strings.Count(args[2], "@") != 1 {
		ts.Fatalf("usage: deepjson FILE DEPTH TEMPLATE-WITH-ONE-@")
	}
	depth, err := strconv.Atoi(args[1])
	ts.Check(err)
	bomb := strings.Repeat("[", depth) + strings.Repeat("]", depth)
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(strings.Replace(args[2], "@", bomb, 1)), 0o644))
}

// stallserver is `stallserver SOCKET`: a server that accepts connections on
// a unix socket, reads what they send and never answers, until it is killed.
func stallserver() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: stallserver SOCKET")
		os.Exit(2)
	}
	l, err := net.Listen("unix", os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "stallserver:", err)
		os.Exit(1)
	}
	for {
		c, err := l.Accept()
		if err != nil {
			os.Exit(1)
		}
		go func() { _, _ = io.Copy(io.Discard, c) }()
	}
}

// cmdMountTmpfs is `mounttmpfs DIR SIZE`: a tmpfs of SIZE (e.g. 256k) on DIR,
// unmounted when the script ends, to fill a disk for real; `mounttmpfs -ro
// DIR` remounts it read-only. Scripts guard it with [tmpfs].
func cmdMountTmpfs(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) == 2 && args[0] == "-ro" {
		ts.Check(exec.Command("mount", "-o", "remount,ro", ts.MkAbs(args[1])).Run())
		return
	}
	if len(args) != 2 {
		ts.Fatalf("usage: mounttmpfs DIR SIZE | mounttmpfs -ro DIR")
	}
	dir := ts.MkAbs(args[0])
	ts.Check(os.MkdirAll(dir, 0o700))
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+args[1]+",mode=0700", "tmpfs", dir).CombinedOutput(); err != nil {
		ts.Fatalf("mount a tmpfs on %s: %v: %s", dir, err, strings.TrimSpace(string(out)))
	}
	// Lazy: a sender may still hold a file open in it.
	ts.Defer(func() { _ = exec.Command("umount", "-l", dir).Run() })
}

var canMount = sync.OnceValue(func() bool {
	dir, err := os.MkdirTemp("", "nh-tmpfs")
	if err != nil {
		return false
	}
	defer os.Remove(dir)
	if exec.Command("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", dir).Run() != nil {
		return false
	}
	return exec.Command("umount", dir).Run() == nil
})

// condition adds [tmpfs]: this process may mount a tmpfs (root on Linux,
// outside a sandbox that forbids it).
func condition(cond string) (bool, error) {
	if cond == "tmpfs" {
		return runtime.GOOS == "linux" && canMount(), nil
	}
	return false, fmt.Errorf("unknown condition %q", cond)
}
