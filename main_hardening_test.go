package main

import (
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"

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
