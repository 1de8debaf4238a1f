package journal

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// MaxReadLine bounds one line the reader accepts: a line longer than this
// (not one a Writer wrote) is skipped and counted as unreadable.
const MaxReadLine = 1 << 20

// Filter selects records; its zero value takes every one.
type Filter struct {
	Event   string
	Session string
	// Hook takes records in which a hook whose name or location contains
	// it was considered.
	Hook    string
	Since   time.Time
	Blocked bool
}

// Match reports whether r passes the filter.
func (f Filter) Match(r Record) bool {
	if f.Event != "" && r.Event != f.Event && r.AgentEvent != f.Event {
		return false
	}
	if f.Session != "" && r.Session != f.Session {
		return false
	}
	if !f.Since.IsZero() && r.Time.Before(f.Since) {
		return false
	}
	if f.Blocked && !r.Blocked() {
		return false
	}
	if f.Hook != "" {
		for _, h := range r.Hooks {
			if strings.Contains(h.Hook, f.Hook) || strings.Contains(h.Where, f.Hook) {
				return true
			}
		}
		return false
	}
	return true
}

// ParseLine reads one journal line.
func ParseLine(line []byte) (Record, error) {
	var r Record
	if err := json.Unmarshal(line, &r); err != nil {
		return Record{}, fmt.Errorf("not a journal record: %w", err)
	}
	if r.Event == "" || r.Time.IsZero() {
		return Record{}, errors.New("not a journal record: no event or time")
	}
	return r, nil
}

// Scan calls fn with every record of r that passes filter, in file order,
// and returns how many lines could not be read. It stops at fn's first error.
func Scan(r io.Reader, filter Filter, fn func(Record) error) (bad int, err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, tooLong, err := readLine(br)
		if len(line) > 0 || tooLong {
			if tooLong {
				bad++
			} else if rec, perr := ParseLine(line); perr != nil {
				bad++
			} else if filter.Match(rec) {
				if ferr := fn(rec); ferr != nil {
					return bad, ferr
				}
			}
		}
		if err == io.EOF {
			return bad, nil
		}
		if err != nil {
			return bad, err
		}
	}
}

// readLine reads one line of at most MaxReadLine bytes, without its newline;
// a longer one is read away and reported as tooLong. A last line without a
// newline is returned with io.EOF.
func readLine(br *bufio.Reader) (line []byte, tooLong bool, err error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(buf)+len(chunk) > MaxReadLine {
				tooLong, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(buf, "\r\n"), tooLong, err
	}
}

// Files are the journal files of path, oldest first: the rotated generation,
// then the current file. Missing ones are left out.
func Files(path string) []string {
	var out []string
	for _, p := range []string{path + ".1", path} {
		if _, err := os.Stat(p); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// ReadAll calls fn with every record of the journal at path that passes
// filter, oldest first, and returns how many lines could not be read and
// where it stopped reading the current file: Follow goes on from there, so
// that a record appended meanwhile is shown once.
func ReadAll(path string, filter Filter, fn func(Record) error) (bad int, end int64, err error) {
	for _, p := range Files(path) {
		f, err := os.Open(p)
		if err != nil {
			return bad, 0, fmt.Errorf("read journal: %w", err)
		}
		var size int64
		if st, err := f.Stat(); err == nil {
			size = st.Size()
		}
		// Up to the size seen now: lines are appended whole, one write each.
		n, err := Scan(io.LimitReader(f, size), filter, fn)
		f.Close()
		bad += n
		if err != nil {
			return bad, 0, err
		}
		if p == path {
			end = size
		}
	}
	return bad, end, nil
}

// Follow calls fn with every record appended to the journal at path from
// offset from on (a negative from: its current end), as they come, until ctx
// is done, following the file across rotations. It polls every interval.
func Follow(ctx context.Context, path string, from int64, filter Filter, interval time.Duration, fn func(Record) error) error {
	t := tail{filter: filter, fn: fn, offset: from}
	defer t.close()
	if from < 0 {
		t.offset = 0
		if st, err := os.Stat(path); err == nil {
			t.offset = st.Size()
		}
	}
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		if st, err := os.Stat(path); err == nil {
			if t.f != nil {
				if fst, ferr := t.f.Stat(); ferr != nil || !os.SameFile(st, fst) {
					// Rotated: finish the old file, then start the new one.
					if err := t.drain(); err != nil {
						return err
					}
					t.close()
					t.offset, t.partial = 0, nil
				}
			}
			if t.f == nil {
				t.f, _ = os.Open(path)
			}
			if t.f != nil {
				if st.Size() < t.offset { // truncated in place
					t.offset, t.partial = 0, nil
				}
				if err := t.drain(); err != nil {
					return err
				}
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// tail is the file Follow reads and how far it got.
type tail struct {
	f       *os.File
	offset  int64
	partial []byte // a line not finished yet, at most MaxReadLine bytes
	filter  Filter
	fn      func(Record) error
}

func (t *tail) close() {
	if t.f != nil {
		t.f.Close()
		t.f = nil
	}
}

// drain reads what was appended since the last call and hands over the
// whole lines.
func (t *tail) drain() error {
	buf := make([]byte, 64<<10)
	for {
		n, rerr := t.f.ReadAt(buf, t.offset)
		t.offset += int64(n)
		t.partial = append(t.partial, buf[:n]...)
		for {
			i := bytes.IndexByte(t.partial, '\n')
			if i < 0 {
				break
			}
			line := t.partial[:i]
			t.partial = t.partial[i+1:]
			if rec, err := ParseLine(line); err == nil && t.filter.Match(rec) {
				if err := t.fn(rec); err != nil {
					return err
				}
			}
		}
		if len(t.partial) > MaxReadLine {
			t.partial = nil // not a line a writer wrote: drop it
		}
		if rerr != nil || n == 0 {
			return nil
		}
	}
}
