package outbound

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestTheRecordOfUnspooledDeliveries(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	at := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	u := func(id string, sec int) Unspooled {
		return Unspooled{At: at.Add(time.Duration(sec) * time.Second), Target: "ci", URL: "https://ci/x", Event: "on_session_end", DeliveryID: id, Error: "no space left on device"}
	}
	t.Run("it goes to the outbound directory when it can", func(t *testing.T) {
		sp := Spool{Dir: t.TempDir()}
		file, err := sp.RecordUnspooled([]Unspooled{u("a", 1), u("b", 2)})
		if err != nil || file != sp.unspooledFile() {
			t.Fatalf("recorded in %q (%v)", file, err)
		}
		if got, n := sp.Unspooled(); n != 2 || got[0].DeliveryID != "a" || got[1].DeliveryID != "b" {
			t.Fatalf("read back %d: %+v", n, got)
		}
	})
	t.Run("it falls back to the temporary directory when the outbound directory refuses it", func(t *testing.T) {
		// A file where the directory should be: nothing can be created in it.
		blocked := filepath.Join(t.TempDir(), "outbound")
		os.WriteFile(blocked, nil, 0o600)
		sp := Spool{Dir: blocked}
		file, err := sp.RecordUnspooled([]Unspooled{u("c", 3)})
		if err != nil || file != sp.unspooledFallback() {
			t.Fatalf("recorded in %q (%v)", file, err)
		}
		if got, n := sp.Unspooled(); n != 1 || got[0].DeliveryID != "c" {
			t.Fatalf("read back %d: %+v", n, got)
		}
	})
	t.Run("a line cut short by a full disk is skipped and the others kept", func(t *testing.T) {
		sp := Spool{Dir: t.TempDir()}
		if _, err := sp.RecordUnspooled([]Unspooled{u("d", 4)}); err != nil {
			t.Fatal(err)
		}
		f, _ := os.OpenFile(sp.unspooledFile(), os.O_WRONLY|os.O_APPEND, 0)
		f.WriteString(`{"at":"2026-11-30T12:00:05Z","target":"ci","ev`)
		f.Close()
		if _, err := sp.RecordUnspooled([]Unspooled{u("e", 6)}); err != nil {
			t.Fatal(err)
		}
		got, n := sp.Unspooled()
		if n != 2 || got[0].DeliveryID != "d" || got[1].DeliveryID != "e" {
			t.Fatalf("read back %d: %+v", n, got)
		}
	})
}
