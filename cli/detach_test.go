package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

func TestStampWriterStampsWholeLines(t *testing.T) {
	var out bytes.Buffer
	at := time.Date(2026, 11, 29, 10, 0, 0, 0, time.FixedZone("x", 3600))
	w := &stampWriter{w: &out, now: func() time.Time { return at }, what: "exec on_session_end"}
	for _, chunk := range []string{"noora-hooks: warning: one\nnoora-hooks: warn", "ing: two\n", "no newline"} {
		w.Write([]byte(chunk))
	}
	w.Flush()
	want := "2026-11-29T09:00:00Z exec on_session_end: noora-hooks: warning: one\n" +
		"2026-11-29T09:00:00Z exec on_session_end: noora-hooks: warning: two\n" +
		"2026-11-29T09:00:00Z exec on_session_end: no newline\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}

func TestStampWriterBoundsAnUnfinishedLine(t *testing.T) {
	var out bytes.Buffer
	w := &stampWriter{w: &out, now: time.Now, what: "x"}
	big := bytes.Repeat([]byte("y"), 1<<20)
	w.Write(big)
	if len(w.partial) != stampLineLimit {
		t.Errorf("kept %d bytes of an unfinished line, want %d", len(w.partial), stampLineLimit)
	}
	w.Write([]byte("\n"))
	if n := out.Len(); n > stampLineLimit+100 {
		t.Errorf("wrote a line of %d bytes", n)
	}
}

func TestStampWriterKeepsConcurrentLinesWhole(t *testing.T) {
	var out bytes.Buffer
	w := &stampWriter{w: &out, now: time.Now, what: "x"}
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 100; j++ {
				w.Write([]byte("abcdefghij\n"))
			}
		}()
	}
	wg.Wait()
	for _, l := range bytes.Split(bytes.TrimSuffix(out.Bytes(), []byte("\n")), []byte("\n")) {
		if !bytes.HasSuffix(l, []byte(" x: abcdefghij")) {
			t.Fatalf("torn line %q", l)
		}
	}
}

func TestRotateMovesABigLogAside(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "exec.log")
	os.WriteFile(log, bytes.Repeat([]byte("x"), 100), 0o600)
	rotate(log, 200)
	if _, err := os.Stat(log + ".1"); err == nil {
		t.Fatal("a small log was moved")
	}
	rotate(log, 50)
	if _, err := os.Stat(log); err == nil {
		t.Error("the big log is still there")
	}
	if st, err := os.Stat(log + ".1"); err != nil || st.Size() != 100 {
		t.Errorf("the big log was not moved to .1: %v", err)
	}
}
