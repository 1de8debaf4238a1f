// Command benchhook is the hook the benchmarks run: as small and fast as a
// hook can be, so that what is measured is noora-hooks, not the hook. It reads
// its stdin, then acts on its arguments, taken in pairs:
//
//	benchhook                     answer {}
//	benchhook sleep 200ms         sleep, then answer {}
//	benchhook flood 209715200     write that many bytes of "x" instead of an answer
//	benchhook tag 3               no effect: makes command lines distinct
package main

import (
	"io"
	"os"
	"strconv"
	"time"
)

func main() {
	_, _ = io.Copy(io.Discard, os.Stdin)
	args := os.Args[1:]
	if len(args)%2 != 0 {
		fail("arguments come in pairs: sleep D, flood N, tag WORD")
	}
	for i := 0; i < len(args); i += 2 {
		switch key, val := args[i], args[i+1]; key {
		case "sleep":
			d, err := time.ParseDuration(val)
			if err != nil {
				fail(err.Error())
			}
			time.Sleep(d)
		case "flood":
			n, err := strconv.ParseInt(val, 10, 64)
			if err != nil {
				fail(err.Error())
			}
			flood(n)
			return
		case "tag":
		default:
			fail("unknown argument " + key)
		}
	}
	os.Stdout.WriteString("{}\n")
}

func fail(msg string) {
	os.Stderr.WriteString("benchhook: " + msg + "\n")
	os.Exit(2)
}

func flood(n int64) {
	chunk := make([]byte, 64<<10)
	for i := range chunk {
		chunk[i] = 'x'
	}
	for n > 0 {
		m := int64(len(chunk))
		if n < m {
			m = n
		}
		if _, err := os.Stdout.Write(chunk[:m]); err != nil {
			return
		}
		n -= m
	}
}
