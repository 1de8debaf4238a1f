package journal

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Defaults of a Writer.
const (
	// DefaultMaxBytes is the size past which runs.jsonl is rotated to
	// runs.jsonl.1 (the one older generation kept): at most about twice
	// this on disk.
	DefaultMaxBytes = 8 << 20
	// DefaultQueue is how many firings wait to be written before new ones
	// are dropped and counted: a full queue means the disk is slower than
	// the events, and the answer must not wait for it.
	DefaultQueue = 256
	// FileName is the journal's name in <home>/logs.
	FileName = "runs.jsonl"
)

// PathIn is the journal of a home: <home>/logs/runs.jsonl.
func PathIn(home string) string { return filepath.Join(home, "logs", FileName) }

// Options tune a Writer.
type Options struct {
	MaxBytes int64 // 0: DefaultMaxBytes
	Queue    int   // 0: DefaultQueue
	// Warn receives the writer's problems (a journal that cannot be
	// written); nil drops them. It is called from the writer's goroutine.
	Warn func(msg string)
	// Export, when set, gets every record, from the writer's goroutine
	// (traces are exported from there, off the answer's path).
	Export func(Record)
	// Discard writes no file (journal: false) and only exports.
	Discard bool
	// OneShot: Add keeps the firings (at most Queue) and Close writes them
	// on its caller's goroutine. For commands that fire, print their answer,
	// close and exit: a goroutine would only add a thread's wake-up to
	// their exit (docs/performance.md). Close then has no grace, but it
	// writes under the home whose config the command has just read.
	OneShot bool
}

// Writer appends records to a journal file without making its callers
// wait: Add queues a firing and returns; one goroutine builds, redacts and
// writes. Several processes may append to the same file at once: each line
// is one write to a file opened O_APPEND, and rotation is done under a lock.
// A nil *Writer is a journal that is off.
type Writer struct {
	path string
	opts Options

	once    sync.Once
	queue   chan *Firing // pointers: the channel's buffer stays small
	done    chan struct{}
	dropped atomic.Int64
	warned  bool // only the writer goroutine (or a OneShot Close) touches it
	closed  atomic.Bool

	mu   sync.Mutex // guards held
	held []*Firing  // OneShot: the firings Close writes
}

// NewWriter returns a writer of the journal at path; nothing is started or
// opened before the first Add.
func NewWriter(path string, opts Options) *Writer {
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.Queue <= 0 {
		opts.Queue = DefaultQueue
	}
	return &Writer{path: path, opts: opts}
}

// Path is the journal file.
func (w *Writer) Path() string { return w.path }

// Add queues a firing and returns at once; it reports false when the firing
// was dropped (the queue is full, or the writer is closed).
func (w *Writer) Add(f Firing) bool {
	if w == nil || w.closed.Load() {
		return false
	}
	if w.opts.OneShot {
		w.mu.Lock()
		defer w.mu.Unlock()
		if len(w.held) < w.opts.Queue {
			w.held = append(w.held, &f)
			return true
		}
		w.dropped.Add(1)
		return false
	}
	w.once.Do(w.start)
	select {
	case w.queue <- &f:
		return true
	default:
		w.dropped.Add(1)
		return false
	}
}

// Dropped counts the firings Add could not queue.
func (w *Writer) Dropped() int64 {
	if w == nil {
		return 0
	}
	return w.dropped.Load()
}

func (w *Writer) start() {
	w.queue = make(chan *Firing, w.opts.Queue)
	w.done = make(chan struct{})
	go w.run()
}

// Close stops taking firings and waits at most grace for those queued to be
// written; what is left then is lost (and the journal says nothing of it).
// A OneShot writer writes them before returning.
func (w *Writer) Close(grace time.Duration) {
	if w == nil || w.closed.Swap(true) {
		return
	}
	if w.opts.OneShot {
		w.mu.Lock()
		held := w.held
		w.held = nil
		w.mu.Unlock()
		var batch []byte
		for _, f := range held {
			batch = append(batch, w.line(f)...)
		}
		w.flush(batch)
		return
	}
	w.once.Do(func() {}) // never started: nothing to wait for
	if w.queue == nil {
		return
	}
	close(w.queue)
	select {
	case <-w.done:
	case <-time.After(grace):
	}
}

func (w *Writer) run() {
	defer close(w.done)
	var batch []byte
	for f := range w.queue {
		batch = append(batch[:0], w.line(f)...)
		// Whatever else is already queued goes in the same open and write.
	more:
		for len(batch) < 1<<20 {
			select {
			case g, ok := <-w.queue:
				if !ok {
					break more
				}
				batch = append(batch, w.line(g)...)
			default:
				break more
			}
		}
		w.flush(batch)
	}
}

// line is a firing's journal line, after handing its record to Export;
// nothing when the journal only exports.
func (w *Writer) line(f *Firing) []byte {
	rec := Build(*f)
	if w.opts.Export != nil {
		w.opts.Export(rec)
	}
	if w.opts.Discard {
		return nil
	}
	return rec.Line()
}

// flush writes whole lines, and warns once per process when it cannot.
func (w *Writer) flush(lines []byte) {
	if len(lines) == 0 {
		return
	}
	if err := w.write(lines); err != nil && !w.warned {
		w.warned = true // the next firing would say it again
		if w.opts.Warn != nil {
			w.opts.Warn(fmt.Sprintf("run journal %s: %v; firings are not recorded", w.path, err))
		}
	}
}

// write appends lines (whole lines) to the journal, rotating it first when
// they would take it past MaxBytes.
func (w *Writer) write(lines []byte) error {
	f, err := w.open()
	if err != nil {
		return err
	}
	if st, err := f.Stat(); err == nil && st.Size() > 0 && st.Size()+int64(len(lines)) > w.opts.MaxBytes {
		f.Close()
		if err := w.rotate(int64(len(lines))); err != nil {
			return err
		}
		if f, err = w.open(); err != nil {
			return err
		}
	}
	// One write per call, O_APPEND: lines of concurrent writers never
	// interleave inside a line.
	_, err = f.Write(lines)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func (w *Writer) open() (*os.File, error) {
	f, err := os.OpenFile(w.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if errors.Is(err, os.ErrNotExist) { // the first firing of a home: make <home>/logs
		if err := os.MkdirAll(filepath.Dir(w.path), 0o700); err != nil {
			return nil, fmt.Errorf("create its directory: %w", err)
		}
		f, err = os.OpenFile(w.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	}
	if err != nil {
		return nil, fmt.Errorf("open: %w", err)
	}
	return f, nil
}

// rotate renames the journal to <path>.1, under an exclusive lock on
// <path>.lock, and only when the file is still over the bound: of two
// writers that both found it full, the second must not rotate away the
// fresh file the first just started.
func (w *Writer) rotate(need int64) error {
	lock, err := os.OpenFile(w.path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("rotate: %w", err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("rotate: lock %s: %w", lock.Name(), err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	st, err := os.Stat(w.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("rotate: %w", err)
	}
	if st.Size() == 0 || st.Size()+need <= w.opts.MaxBytes {
		return nil // someone else rotated it
	}
	if err := os.Rename(w.path, w.path+".1"); err != nil {
		return fmt.Errorf("rotate: %w", err)
	}
	return nil
}
