package outbound

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/noora-hooks/noora-hooks/internal/config"
)

// Unspooled is one delivery that could not be written to the spool (the
// disk is full or read-only, the spool is at its bound, the body too large),
// as `outbound status` lists it afterwards (SPEC §7).
type Unspooled struct {
	At         time.Time `json:"at"`
	Target     string    `json:"target"`
	URL        string    `json:"url"`
	Event      string    `json:"event"`
	DeliveryID string    `json:"delivery_id"`
	Error      string    `json:"error"`
}

// Bounds of the record of unspooled deliveries: it is appended to until it
// holds about maxUnspooledFile bytes, then left alone (status says there may
// be more); status reads the last maxUnspooledShown entries.
const (
	maxUnspooledFile  = 1 << 20
	maxUnspooledShown = 100
)

func (s Spool) unspooledFile() string { return filepath.Join(s.Dir, "unspooled.jsonl") }

// unspooledFallback is where the record goes when the outbound directory
// cannot take it (the same full or read-only disk): a file in the temporary
// directory, named after the spool, so a later status finds it.
func (s Spool) unspooledFallback() string {
	return filepath.Join(os.TempDir(), fmt.Sprintf("noora-hooks-%d-unspooled-%s.jsonl", os.Getuid(), Key(s.Dir)))
}

// RecordUnspooled appends us to the record of unspooled deliveries: in the
// outbound directory, else in the temporary directory. It returns the file
// written, or an error when neither took it. A line cut short by a disk
// that fills mid-write is skipped by the reader; nothing else is touched.
func (s Spool) RecordUnspooled(us []Unspooled) (string, error) {
	if len(us) == 0 {
		return "", nil
	}
	var data []byte
	for _, u := range us {
		b, _ := json.Marshal(u)
		data = append(append(data, b...), '\n')
	}
	var errs []error
	for _, file := range []string{s.unspooledFile(), s.unspooledFallback()} {
		err := appendBounded(file, data)
		if err == nil {
			return file, nil
		}
		errs = append(errs, err)
	}
	return "", fmt.Errorf("record the undelivered: %w; %w", errs[0], errs[1])
}

// appendBounded appends data to file (mode 0600) unless it already holds
// maxUnspooledFile bytes; a full record is not an error.
func appendBounded(file string, data []byte) error {
	f, err := os.OpenFile(file, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err == nil && st.Size() >= maxUnspooledFile {
		return nil
	}
	if err == nil && st.Size() > 0 {
		// A line cut short by an earlier failed write ends here: start
		// on a line of our own so that ours is whole.
		var last [1]byte
		if _, err := f.ReadAt(last[:], st.Size()-1); err == nil && last[0] != '\n' {
			data = append([]byte{'\n'}, data...)
		}
	}
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("append to %s: %w", file, err)
	}
	return nil
}

// Unspooled returns the last recorded deliveries that could not be spooled,
// oldest first, from both places RecordUnspooled writes, and how many there
// are in all.
func (s Spool) Unspooled() (last []Unspooled, total int) {
	var all []Unspooled
	for _, file := range []string{s.unspooledFile(), s.unspooledFallback()} {
		all = append(all, readUnspooled(file)...)
	}
	slices.SortStableFunc(all, func(a, b Unspooled) int { return a.At.Compare(b.At) })
	total = len(all)
	if len(all) > maxUnspooledShown {
		all = all[len(all)-maxUnspooledShown:]
	}
	return all, total
}

func readUnspooled(file string) []Unspooled {
	f, err := os.Open(file)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []Unspooled
	sc := bufio.NewScanner(io.LimitReader(f, maxUnspooledFile+64<<10))
	sc.Buffer(nil, 64<<10) // a line is a few hundred bytes; longer is not ours
	for sc.Scan() {
		var u Unspooled
		if json.Unmarshal(sc.Bytes(), &u) == nil && u.Event != "" {
			out = append(out, u)
		}
	}
	return out
}

// unspooledReport gathers the deliveries of one event that could not be
// spooled, so that a disk that refuses writes is reported once per event,
// not once per target, and every such delivery is recorded for status.
type unspooledReport struct {
	lost    []Unspooled
	first   int    // the result that carries the warning
	ioErr   error  // the first error that was not the bound's
	targets string // the targets that error dropped, quoted
}

func (r *unspooledReport) add(result int, t config.OutboundTarget, d Delivery, err error) {
	r.lost = append(r.lost, Unspooled{Target: t.Name, URL: t.URL, Event: d.Event, DeliveryID: d.ID, Error: err.Error()})
	if errors.Is(err, ErrFull) || errors.Is(err, ErrTooLarge) {
		return // each warned about on its own (dropped)
	}
	if r.ioErr == nil {
		r.first, r.ioErr = result, err
	} else {
		r.targets += ", "
	}
	r.targets += strconv.Quote(t.Name)
}

// record writes the record and returns the one warning about a disk that
// refused the deliveries, or "".
func (r *unspooledReport) record(sp Spool, event string, now time.Time) string {
	for i := range r.lost {
		r.lost[i].At = now.UTC()
	}
	_, recErr := sp.RecordUnspooled(r.lost)
	if r.ioErr == nil {
		return ""
	}
	w := fmt.Sprintf("outbound: the %s deliveries to %s were not spooled: %v; ", event, r.targets, r.ioErr)
	if recErr != nil {
		return w + fmt.Sprintf("they could not be recorded either (%v)", recErr)
	}
	return w + "\"noora-hooks outbound status\" lists them"
}
