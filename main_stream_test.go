package main

import (
	"os"
	"regexp"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdAwaitMatch (`awaitre FILE REGEXP`) waits up to 10 s for FILE to exist
// and match REGEXP (multi-line mode), for logs written in the background.
func cmdAwaitMatch(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: awaitre FILE REGEXP")
	}
	re, err := regexp.Compile("(?m)" + args[1])
	ts.Check(err)
	deadline := time.Now().Add(10 * time.Second)
	for {
		data, err := os.ReadFile(ts.MkAbs(args[0]))
		if err == nil && re.Match(data) {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("%s does not match %q after 10s; it holds:\n%s", args[0], args[1], data)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
