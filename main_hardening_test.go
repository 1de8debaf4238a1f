package main

import (
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
