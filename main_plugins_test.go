package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// repoRoot is where the tests run from: the examples are built from here.
var repoRoot, _ = os.Getwd()

// cmdGobin builds an example plugin: `gobin NAME DEST` runs
// go build -o DEST ./examples/plugins/NAME.
func cmdGobin(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: gobin NAME DEST")
	}
	cmd := exec.Command("go", "build", "-o", ts.MkAbs(args[1]), "./examples/plugins/"+args[0])
	cmd.Dir = repoRoot
	if out, err := cmd.CombinedOutput(); err != nil {
		ts.Fatalf("go build %s: %v\n%s", args[0], err, out)
	}
}

// cmdAwait (`await FILE...`) waits up to 10 s for each FILE to exist (for work done in the
// background).
func cmdAwait(ts *testscript.TestScript, neg bool, args []string) {
	deadline := time.Now().Add(10 * time.Second)
	for _, f := range args {
		for {
			_, err := os.Stat(ts.MkAbs(f))
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				ts.Fatalf("%s did not appear within 10s", f)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// fakeplugin is a plugin in any language, as far as noora-hooks can tell: it
// speaks the plugin protocol, or breaks it in the way the script asks.
func fakeplugin() {
	fs := flag.NewFlagSet("fakeplugin", flag.ExitOnError)
	version := fs.Int("protocol", 1, "announce this protocol version")
	hook := fs.String("hook", "pre_tool_call", "register a callback for this event")
	answer := fs.String("answer", "null", "answer every invoke with this JSON value")
	garbage := fs.Bool("garbage", false, "print something that is not JSON instead of a hello")
	logLine := fs.String("log", "", "write this line to stderr at start")
	_ = fs.Parse(os.Args[1:])

	if *logLine != "" {
		fmt.Fprintln(os.Stderr, *logLine)
	}
	if *garbage {
		fmt.Println("Hello! I am a plugin.")
	} else {
		hello, _ := json.Marshal(map[string]any{
			"type": "hello", "protocol": *version,
			"hooks": []map[string]string{{"event": *hook, "callback": "fake"}},
		})
		fmt.Printf("%s\n", hello)
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 64<<20+64<<10)
	for in.Scan() {
		var req struct {
			ID int64 `json:"id"`
		}
		if json.Unmarshal(in.Bytes(), &req) != nil {
			continue
		}
		fmt.Printf(`{"type":"result","id":%d,"value":%s}`+"\n", req.ID, *answer)
	}
}
