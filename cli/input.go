package cli

import (
	"fmt"
	"io"
	"os"
)

// MaxPayload bounds the kwargs exec reads (and a gateway context, a tool's
// payload): large enough for a long conversation history, small enough that a
// runaway producer cannot exhaust memory.
const MaxPayload = 64 << 20

// readInput reads what a command takes as input: file, or stdin when file is
// "" or "-", at most limit bytes. what names it in errors ("payload",
// "context"); name is where it came from, for the caller's own errors.
func readInput(what, file string, stdin io.Reader, limit int) (data []byte, name string, err error) {
	src, name := stdin, "stdin"
	if file != "" && file != "-" {
		f, err := os.Open(file)
		if err != nil {
			return nil, file, fmt.Errorf("read %s: %w", what, err)
		}
		defer f.Close()
		src, name = f, file
	}
	if src == nil {
		return nil, name, nil
	}
	data, err = io.ReadAll(io.LimitReader(src, int64(limit)+1))
	if err != nil {
		return nil, name, fmt.Errorf("read %s from %s: %w", what, name, err)
	}
	if len(data) > limit {
		return nil, name, fmt.Errorf("read %s from %s: larger than %s", what, name, size(limit))
	}
	return data, name, nil
}

// size prints a bound: "64 MiB", "256 KiB".
func size(n int) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d KiB", n>>10)
}
