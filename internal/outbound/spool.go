package outbound

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/noora-hooks/noora-hooks/internal/config"
)

// Spool is the durable queue of deliveries under <home>/outbound/ (SPEC §1,
// §7). Its layout:
//
//	spool/<created>-<target key>-<delivery id>.delivery   one pending delivery
//	spool/<created>-x<n>-<batch id>.event   the n deliveries of one event (event.go)
//	spool.lock      held while a delivery is added (the bound is checked under it)
//	sender.lock     held by the one sender for its whole life; holds its pid
//	sender.log      what the background sender did
//	corrupt/        spool files that could not be read, moved aside
//	failures.json   the last failed attempt per target url
//
// A delivery file is written to a temporary name and renamed: a reader sees
// all of it or nothing. It is not fsynced: the budget of exec is two
// milliseconds and one fsync can cost more. A process crash or a clean reboot
// loses nothing; a power cut may leave a file cut short, which the sender
// moves aside as corrupt.
type Spool struct {
	Dir string // <home>/outbound
	// Limit is how many deliveries it holds; 0 means config.DefaultOutboundSpoolLimit.
	Limit int
}

// DirOf is the outbound directory of a Noora home.
func DirOf(home string) string { return filepath.Join(home, "outbound") }

func (s Spool) queue() string        { return filepath.Join(s.Dir, "spool") }
func (s Spool) corruptDir() string   { return filepath.Join(s.Dir, "corrupt") }
func (s Spool) addLock() string      { return filepath.Join(s.Dir, "spool.lock") }
func (s Spool) senderLock() string   { return filepath.Join(s.Dir, "sender.lock") }
func (s Spool) failuresFile() string { return filepath.Join(s.Dir, "failures.json") }

// Log is where the background sender writes what it did.
func (s Spool) Log() string { return filepath.Join(s.Dir, "sender.log") }

func (s Spool) limit() int {
	if s.Limit <= 0 {
		return config.DefaultOutboundSpoolLimit
	}
	return s.Limit
}

// Errors of Add that callers turn into warnings.
var (
	ErrFull     = errors.New("the outbound spool is full")
	ErrTooLarge = fmt.Errorf("the delivery is over %d MiB", MaxBody>>20)
)

const suffix = ".delivery"

// Key names a target url in spool file names: deliveries with one key go
// out one at a time, in spool order.
func Key(url string) string {
	h := sha256.Sum256([]byte(url))
	return hex.EncodeToString(h[:8])
}

func entryName(d Delivery) string {
	return fmt.Sprintf("%020d-%s-%s%s", d.Created.UnixNano(), Key(d.URL), d.ID, suffix)
}

// Entry is one pending spool file, known by its name alone.
type Entry struct {
	Name    string
	Key     string // "" when the name is not one the spool writes, or an event file
	ID      string
	Created time.Time
	// Count is how many deliveries the file holds: 1, or n for an event file.
	Count int
	Event bool
}

func parseEntry(name string) Entry {
	if strings.HasSuffix(name, eventSuffix) {
		return parseEventEntry(name)
	}
	e := Entry{Name: name, Count: 1}
	base, ok := strings.CutSuffix(name, suffix)
	parts := strings.Split(base, "-")
	if !ok || len(parts) != 3 || len(parts[0]) != 20 || len(parts[1]) != 16 || !isHexID(parts[2]) {
		return e
	}
	if _, err := hex.DecodeString(parts[1]); err != nil {
		return e
	}
	nanos, err := strconv.ParseInt(parts[0], 10, 64)
	if err != nil || nanos < 0 {
		return e
	}
	e.Key, e.ID, e.Created = parts[1], parts[2], time.Unix(0, nanos)
	return e
}

// Add writes d to the spool, unless the spool already holds its limit
// (ErrFull) or d is too large (ErrTooLarge).
func (s Spool) Add(d Delivery) error {
	if len(d.Body) > MaxBody {
		return ErrTooLarge
	}
	return s.put(entryName(d), d.Encode(), 1)
}

// put adds a file of k deliveries. It is written under a temporary name
// first, outside any lock, so that concurrent execs write side by side; it
// enters the spool by a rename under spool.lock, together with the count, so
// the bound is never overshot and a recount always agrees with the count.
func (s Spool) put(name string, data []byte, k int) error {
	tmp := filepath.Join(s.queue(), ".tmp-"+name)
	err := os.WriteFile(tmp, data, 0o600)
	if errors.Is(err, os.ErrNotExist) {
		if err = os.MkdirAll(s.queue(), 0o700); err == nil {
			err = os.WriteFile(tmp, data, 0o600)
		}
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write delivery %s: %w", tmp, err)
	}
	err = s.withCount(false, func(n int) (int, error) {
		if n+k > s.limit() {
			return n, ErrFull
		}
		if err := os.Rename(tmp, filepath.Join(s.queue(), name)); err != nil {
			return n, fmt.Errorf("write delivery %s: %w", name, err)
		}
		return n + k, nil
	})
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// withCount runs f on the number of pending deliveries under spool.lock and
// stores the number f returns. The number lives in spool.lock itself, so that
// exec need not read a directory of up to `limit` names for every delivery.
// It is recounted from the directory when it is missing or unreadable, when
// recount is set (a sender starting), and before the spool is called full:
// a number left too high by a crash heals at once; one left too low (an exec
// killed between its rename and its count) heals when the next sender starts.
func (s Spool) withCount(recount bool, f func(n int) (int, error)) error {
	lf, err := openLock(s.addLock(), s.Dir)
	if err != nil {
		return err
	}
	defer lf.Close()
	if err := flock(lf, lockExclusive); err != nil {
		return fmt.Errorf("lock %s: %w", s.addLock(), err)
	}
	n, ok := readCount(lf)
	if !ok || recount || n >= s.limit() {
		if n, err = s.count(); err != nil {
			return err
		}
		ok = false
	}
	m, ferr := f(n)
	if m != n || !ok {
		if err := writeCount(lf, m, !ok); err != nil {
			// f's work is done (a delivery renamed into the spool is
			// spooled); a count that could not be stored, on a full disk
			// say, is cut so the next reader recounts rather than trust
			// a stale or torn number.
			_ = lf.Truncate(0)
		}
	}
	return ferr
}

// countWidth is the fixed width of the number in spool.lock.
const countWidth = 20

func readCount(f *os.File) (int, bool) {
	var b [countWidth + 2]byte
	k, _ := f.ReadAt(b[:], 0)
	if k != countWidth+1 {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b[:k])))
	return n, err == nil && n >= 0
}

// writeCount stores n; trim cuts whatever followed a number that did not
// read well (an intact one always has the same width).
func writeCount(f *os.File, n int, trim bool) error {
	if _, err := f.WriteAt(fmt.Appendf(nil, "%0*d\n", countWidth, n), 0); err != nil || !trim {
		return err
	}
	return f.Truncate(countWidth + 1)
}

// count is how many deliveries are pending: one directory read, no stat.
func (s Spool) count() (int, error) {
	names, err := s.names()
	n := 0
	for _, name := range names {
		if spoolFile(name) {
			n += parseEntry(name).Count
		}
	}
	return n, err
}

// spoolFile tells pending files from temporary ones and strangers.
func spoolFile(name string) bool {
	return !strings.HasPrefix(name, ".") && (strings.HasSuffix(name, suffix) || strings.HasSuffix(name, eventSuffix))
}

func (s Spool) names() ([]string, error) {
	f, err := os.Open(s.queue())
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil // nothing was ever spooled
	}
	if err != nil {
		return nil, fmt.Errorf("read outbound spool: %w", err)
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, fmt.Errorf("read outbound spool %s: %w", s.queue(), err)
	}
	return names, nil
}

// Pending lists the pending deliveries in spool order: by the time they were
// fired, then by delivery id.
func (s Spool) Pending() ([]Entry, error) {
	names, err := s.names()
	if err != nil {
		return nil, err
	}
	var out []Entry
	for _, name := range names {
		if spoolFile(name) {
			out = append(out, parseEntry(name))
		}
	}
	slices.SortFunc(out, func(a, b Entry) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// Read reads and checks one pending delivery. A file that is not a valid
// delivery, or whose name disagrees with its content, is ErrCorrupt.
func (s Spool) Read(e Entry) (Delivery, error) {
	if e.Key == "" || e.Event {
		return Delivery{}, fmt.Errorf("%w: the name %q is not one of a delivery", ErrCorrupt, e.Name)
	}
	f, err := os.Open(filepath.Join(s.queue(), e.Name))
	if err != nil {
		return Delivery{}, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxBody+maxMeta+2))
	if err != nil {
		return Delivery{}, fmt.Errorf("read delivery %s: %w", e.Name, err)
	}
	if len(data) > MaxBody+maxMeta+1 {
		return Delivery{}, fmt.Errorf("%w: larger than %d MiB", ErrCorrupt, MaxBody>>20)
	}
	d, err := Decode(data)
	if err != nil {
		return Delivery{}, err
	}
	if Key(d.URL) != e.Key || d.ID != e.ID {
		return Delivery{}, fmt.Errorf("%w: the name does not match the url and delivery_id inside", ErrCorrupt)
	}
	return d, nil
}

// Remove takes a delivery off the spool: it was delivered or given up.
func (s Spool) Remove(e Entry) error {
	err := os.Remove(filepath.Join(s.queue(), e.Name))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("remove delivery %s: %w", e.Name, err)
	}
	return s.left(1)
}

// left takes k deliveries off the count.
func (s Spool) left(k int) error {
	return s.withCount(false, func(n int) (int, error) { return max(n-k, 0), nil })
}

// Recount sets the count from the directory; a sender does it as it starts.
func (s Spool) Recount() error {
	return s.withCount(true, func(n int) (int, error) { return n, nil })
}

// ErrRemovedInstead says a corrupt file could not be moved aside and was
// deleted: it is out of the spool all the same.
var ErrRemovedInstead = errors.New("removed it instead")

// MoveAside moves a corrupt file to corrupt/, where a person can look at it,
// and returns where it went. When even that fails it is removed
// (ErrRemovedInstead), so that it cannot come back for ever; any other
// error means it is still in the spool.
func (s Spool) MoveAside(e Entry) (string, error) {
	from := filepath.Join(s.queue(), e.Name)
	to := filepath.Join(s.corruptDir(), e.Name)
	err := os.MkdirAll(s.corruptDir(), 0o700)
	if err == nil {
		err = os.Rename(from, to)
	}
	if err != nil {
		if rmErr := os.Remove(from); rmErr != nil && !errors.Is(rmErr, os.ErrNotExist) {
			return "", fmt.Errorf("move %s aside: %v; remove it: %w", e.Name, err, rmErr)
		}
		return "", errors.Join(fmt.Errorf("move %s aside: %v; %w", e.Name, err, ErrRemovedInstead), s.left(e.Count))
	}
	return to, s.left(e.Count)
}

// Corrupt counts the files moved aside.
func (s Spool) Corrupt() int {
	entries, err := os.ReadDir(s.corruptDir())
	if err != nil {
		return 0
	}
	return len(entries)
}

// staleTemp is how old a temporary file must be before the sender deletes it:
// an exec writes one in well under a second, so an old one was left by a
// process that died mid-write.
const staleTemp = time.Hour

// Sweep removes temporary files that a crashed writer left behind.
func (s Spool) Sweep(now time.Time) {
	entries, err := os.ReadDir(s.queue())
	if err != nil {
		return
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".tmp-") {
			continue
		}
		if info, err := e.Info(); err == nil && now.Sub(info.ModTime()) > staleTemp {
			os.Remove(filepath.Join(s.queue(), e.Name()))
		}
	}
}
