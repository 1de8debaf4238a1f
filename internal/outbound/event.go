package outbound

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// An event file holds the deliveries of one event to several targets. Making
// a file is the costliest thing exec does (tens of microseconds on a quiet
// disk, a millisecond on a busy one, and creations in one directory queue
// behind each other), so an event with three targets makes one file, not
// three. The sender splits it into one file per delivery before it delivers,
// off the hot path; from there on nothing differs.
//
// Format: a header line {"v":1,"sizes":[n1,n2,...]}, then each delivery's
// spool file (Delivery.Encode) of that many bytes, back to back.
const eventSuffix = ".event"

// maxEventFile bounds an event file. Deliveries whose files would make it
// larger are spooled one file each.
const maxEventFile = 1 << 20

type eventHeader struct {
	Version int   `json:"v"`
	Sizes   []int `json:"sizes"`
}

func eventName(created time.Time, n int, id string) string {
	return fmt.Sprintf("%020d-x%d-%s%s", created.UnixNano(), n, id, eventSuffix)
}

func parseEventEntry(name string) Entry {
	e := Entry{Name: name, Count: 1, Event: true}
	parts := strings.Split(strings.TrimSuffix(name, eventSuffix), "-")
	if len(parts) != 3 || len(parts[0]) != 20 || !strings.HasPrefix(parts[1], "x") || !isHexID(parts[2]) {
		return e
	}
	nanos, err1 := strconv.ParseInt(parts[0], 10, 64)
	n, err2 := strconv.Atoi(parts[1][1:])
	if err1 != nil || err2 != nil || nanos < 0 || n < 2 || n > maxEventDeliveries {
		return e
	}
	e.ID, e.Created, e.Count = parts[2], time.Unix(0, nanos), n
	return e
}

// maxEventDeliveries bounds the count an event file's name may claim.
const maxEventDeliveries = 1000

// AddAll spools the deliveries of one event and returns, for each, nil or
// why it was not spooled (ErrFull, ErrTooLarge or an I/O error). Several
// deliveries go into one event file when there is room for all of them;
// otherwise each is added on its own, so that the ones that fit are kept.
func (s Spool) AddAll(ds []Delivery) []error {
	errs := make([]error, len(ds))
	var batch []int
	size := 0
	for i, d := range ds {
		if len(d.Body) > MaxBody {
			errs[i] = ErrTooLarge
			continue
		}
		batch = append(batch, i)
		size += len(d.Body) + 1024
	}
	one := func(i int) { errs[i] = s.Add(ds[i]) }
	if len(batch) < 2 || len(batch) > maxEventDeliveries || size > maxEventFile {
		for _, i := range batch {
			one(i)
		}
		return errs
	}
	var data []byte
	var sizes []int
	for _, i := range batch {
		enc := ds[i].Encode()
		sizes = append(sizes, len(enc))
		data = append(data, enc...)
	}
	header, _ := json.Marshal(eventHeader{Version: 1, Sizes: sizes})
	data = append(append(header, '\n'), data...)
	id, err := NewID()
	if err != nil {
		for _, i := range batch {
			errs[i] = err
		}
		return errs
	}
	name := eventName(ds[batch[0]].Created, len(batch), id)
	err = s.put(name, data, len(batch))
	if errors.Is(err, ErrFull) {
		for _, i := range batch { // no room for all: keep those that fit
			one(i)
		}
		return errs
	}
	for _, i := range batch {
		errs[i] = err
	}
	return errs
}

// Split replaces an event file by one file per delivery, with the same
// names exec would have given them, so that splitting again after a crash
// halfway makes the same files. The count does not change.
func (s Spool) Split(e Entry) error {
	f, err := os.Open(filepath.Join(s.queue(), e.Name))
	if err != nil {
		return err
	}
	data, err := io.ReadAll(io.LimitReader(f, maxEventFile+maxMeta+1))
	f.Close()
	if err != nil {
		return fmt.Errorf("read %s: %w", e.Name, err)
	}
	ds, err := decodeEvent(data, e.Count)
	if err != nil {
		return err
	}
	var tmps, names []string
	defer func() {
		for _, t := range tmps {
			os.Remove(t) // left when a rename failed; harmless otherwise
		}
	}()
	for _, d := range ds {
		name := entryName(d)
		tmp := filepath.Join(s.queue(), ".tmp-"+name)
		if err := os.WriteFile(tmp, d.Encode(), 0o600); err != nil {
			return fmt.Errorf("split %s: %w", e.Name, err)
		}
		tmps, names = append(tmps, tmp), append(names, name)
	}
	return s.withCount(false, func(n int) (int, error) {
		for i, tmp := range tmps {
			if err := os.Rename(tmp, filepath.Join(s.queue(), names[i])); err != nil {
				return n, fmt.Errorf("split %s: %w", e.Name, err)
			}
		}
		if err := os.Remove(filepath.Join(s.queue(), e.Name)); err != nil {
			return n, fmt.Errorf("split %s: %w", e.Name, err)
		}
		return n, nil
	})
}

// Contents reads the deliveries of any pending file, for `outbound status`.
func (s Spool) Contents(e Entry) ([]Delivery, error) {
	if !e.Event {
		d, err := s.Read(e)
		return []Delivery{d}, err
	}
	data, err := os.ReadFile(filepath.Join(s.queue(), e.Name))
	if err != nil {
		return nil, err
	}
	return decodeEvent(data, e.Count)
}

// decodeEvent reads an event file that its name says holds n deliveries.
func decodeEvent(data []byte, n int) ([]Delivery, error) {
	bad := func(format string, args ...any) ([]Delivery, error) {
		return nil, fmt.Errorf("%w: event file: "+format, append([]any{ErrCorrupt}, args...)...)
	}
	if len(data) > maxEventFile+maxMeta {
		return bad("larger than %d MiB", maxEventFile>>20)
	}
	line, rest, ok := bytes.Cut(data, []byte("\n"))
	if !ok {
		return bad("no header line")
	}
	var h eventHeader
	if err := json.Unmarshal(line, &h); err != nil {
		return bad("header: %v", err)
	}
	if h.Version != 1 || len(h.Sizes) != n || n < 2 {
		return bad("header says version %d and %d deliveries, the name %d", h.Version, len(h.Sizes), n)
	}
	var out []Delivery
	for _, size := range h.Sizes {
		if size <= 0 || size > len(rest) {
			return bad("a delivery of %d bytes where %d are left", size, len(rest))
		}
		d, err := Decode(rest[:size])
		if err != nil {
			return nil, err
		}
		out = append(out, d)
		rest = rest[size:]
	}
	if len(rest) != 0 {
		return bad("%d bytes after the last delivery", len(rest))
	}
	return out, nil
}
