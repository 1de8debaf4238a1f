// Package consent keeps the shell-hook allowlist (SPEC §5): which exact
// (event, command) pairs the user approved, and when. It must never lose an
// approval: writes are atomic, locked against concurrent writers, and a file it
// cannot read is moved aside, never overwritten blindly.
package consent

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/noora-hooks/noora-hooks/protocol"
)

// MaxFileSize bounds the allowlist we read.
const MaxFileSize = 16 << 20

// Approval is one allowlist entry.
type Approval struct {
	Event   string
	Command string
	// ApprovedAt and ScriptMtime are RFC 3339 UTC times; empty in entries
	// written by hand.
	ApprovedAt  string
	ScriptMtime string
	// ScriptPath and ScriptSHA256 bind the approval to one file and its
	// content (see Binding); empty in entries written by hand or before
	// approvals were bound, which the next approval of the pair upgrades.
	ScriptPath   string
	ScriptSHA256 string
	// other keeps members we do not know, so a rewrite loses nothing.
	other protocol.Object
}

// MarshalJSON writes the entry with its known members first.
func (a Approval) MarshalJSON() ([]byte, error) {
	o := protocol.Object{
		{Key: "event", Value: protocol.String(a.Event)},
		{Key: "command", Value: protocol.String(a.Command)},
	}
	if a.ApprovedAt != "" {
		o = append(o, protocol.Field{Key: "approved_at", Value: protocol.String(a.ApprovedAt)})
	}
	if a.ScriptMtime != "" {
		o = append(o, protocol.Field{Key: "script_mtime_at_approval", Value: protocol.String(a.ScriptMtime)})
	}
	if a.ScriptPath != "" {
		o = append(o, protocol.Field{Key: "script_path", Value: protocol.String(a.ScriptPath)})
	}
	if a.ScriptSHA256 != "" {
		o = append(o, protocol.Field{Key: "script_sha256", Value: protocol.String(a.ScriptSHA256)})
	}
	return append(o, a.other...).MarshalJSON()
}

// Allowlist is the parsed file.
type Allowlist struct {
	Approvals []Approval
	// foreign keeps entries that are not approvals and top-level members other
	// than "approvals", written back untouched.
	foreign []gjson.Result
	other   protocol.Object
	// index maps a pair to its position in Approvals; built on first use
	// and kept current by Add, so that 10,000 hooks do not scan 10,000
	// entries each.
	index   map[pair]int
	indexed int // len(Approvals) when index was built
}

type pair struct{ event, command string }

// Find returns the approval of the exact (event, command) pair.
func (l *Allowlist) Find(event, command string) (Approval, bool) {
	l.buildIndex()
	if i, ok := l.index[pair{event, command}]; ok {
		return l.Approvals[i], true
	}
	return Approval{}, false
}

func (l *Allowlist) buildIndex() {
	if l.index != nil && l.indexed == len(l.Approvals) {
		return
	}
	l.index, l.indexed = make(map[pair]int, len(l.Approvals)), len(l.Approvals)
	for i, a := range l.Approvals {
		if _, dup := l.index[pair{a.Event, a.Command}]; !dup {
			l.index[pair{a.Event, a.Command}] = i
		}
	}
}

// Add records a, replacing the earlier entry of the same pair (whose
// members we do not know are kept).
func (l *Allowlist) Add(a Approval) {
	l.buildIndex()
	k := pair{a.Event, a.Command}
	if i, ok := l.index[k]; ok {
		a.other = l.Approvals[i].other
		l.Approvals[i] = a
		return
	}
	l.index[k] = len(l.Approvals)
	l.Approvals = append(l.Approvals, a)
	l.indexed = len(l.Approvals)
}

// ErrBroken marks an allowlist file that is not the expected JSON.
var ErrBroken = errors.New("allowlist is not valid")

// Parse reads allowlist JSON. Entries without a string event and command are
// kept but approve nothing.
func Parse(data []byte) (*Allowlist, error) {
	l := &Allowlist{}
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return l, nil
	}
	if !gjson.ValidBytes(data) {
		return nil, fmt.Errorf("%w: not JSON", ErrBroken)
	}
	root := gjson.ParseBytes(data)
	if !root.IsObject() {
		return nil, fmt.Errorf("%w: expected an object with an \"approvals\" list", ErrBroken)
	}
	approvals := root.Get("approvals")
	if approvals.Exists() && !approvals.IsArray() {
		return nil, fmt.Errorf("%w: \"approvals\" is not a list", ErrBroken)
	}
	root.ForEach(func(k, v gjson.Result) bool {
		if k.String() != "approvals" {
			l.other = append(l.other, protocol.Field{Key: k.String(), Value: []byte(v.Raw)})
		}
		return true
	})
	approvals.ForEach(func(_, e gjson.Result) bool {
		ev, cmd := e.Get("event"), e.Get("command")
		if !e.IsObject() || ev.Type != gjson.String || cmd.Type != gjson.String {
			l.foreign = append(l.foreign, e)
			return true
		}
		a := Approval{Event: ev.String(), Command: cmd.String()}
		e.ForEach(func(k, v gjson.Result) bool {
			switch k.String() {
			case "event", "command":
			case "approved_at":
				a.ApprovedAt = v.String()
			case "script_mtime_at_approval":
				a.ScriptMtime = v.String()
			case "script_path":
				a.ScriptPath = v.String()
			case "script_sha256":
				a.ScriptSHA256 = v.String()
			default:
				a.other = append(a.other, protocol.Field{Key: k.String(), Value: []byte(v.Raw)})
			}
			return true
		})
		l.Approvals = append(l.Approvals, a)
		return true
	})
	return l, nil
}

// MarshalJSON writes the allowlist, pretty enough to edit by hand.
func (l *Allowlist) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("{\n  \"approvals\": [")
	n := 0
	write := func(raw []byte) {
		if n > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n    ")
		b.Write(raw)
		n++
	}
	for _, a := range l.Approvals {
		raw, _ := a.MarshalJSON()
		write(raw)
	}
	for _, f := range l.foreign {
		write([]byte(f.Raw))
	}
	if n > 0 {
		b.WriteString("\n  ")
	}
	b.WriteByte(']')
	for _, f := range l.other {
		b.WriteString(",\n  ")
		b.Write(protocol.String(f.Key))
		b.WriteString(": ")
		b.Write(f.Value)
	}
	b.WriteString("\n}\n")
	return b.Bytes(), nil
}

// Store is the allowlist file and its lock.
type Store struct {
	Path string
	// Warn reports problems that were worked around; nil discards them.
	Warn func(msg string)
}

func (s Store) warn(format string, args ...any) {
	if s.Warn != nil {
		s.Warn(fmt.Sprintf(format, args...))
	}
}

// Load reads the allowlist. A missing file is empty; a broken one reads as
// empty with a warning (SPEC §5).
func (s Store) Load() *Allowlist {
	l, _ := s.LoadChecked()
	return l
}

// LoadChecked is Load that also returns why the file could not be read: a
// fail_closed gate cannot be checked against it, so it is closed (SPEC §5).
// The allowlist it returns is never nil.
func (s Store) LoadChecked() (*Allowlist, error) {
	l, err := s.read()
	if err != nil {
		s.warn("%v; no shell hook counts as approved, and every fail_closed gate blocks, until it is fixed", err)
		return &Allowlist{}, err
	}
	return l, nil
}

func (s Store) read() (*Allowlist, error) {
	f, err := os.Open(s.Path)
	if errors.Is(err, os.ErrNotExist) {
		return &Allowlist{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read allowlist: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("read allowlist %s: %w", s.Path, err)
	}
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("read allowlist %s: %w: larger than %d MiB", s.Path, ErrBroken, MaxFileSize>>20)
	}
	l, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("read allowlist %s: %w", s.Path, err)
	}
	return l, nil
}

// Update changes the allowlist under the lock: it re-reads the file, applies
// change, and writes the result atomically with mode 0600. A file that cannot
// be parsed is moved aside first (never overwritten), with a warning.
func (s Store) Update(change func(*Allowlist) error) error {
	if err := os.MkdirAll(filepath.Dir(s.Path), 0o700); err != nil {
		return fmt.Errorf("update allowlist: %w", err)
	}
	unlock, err := lock(s.Path + ".lock")
	if err != nil {
		return err
	}
	defer unlock()
	l, err := s.read()
	if errors.Is(err, ErrBroken) {
		aside := fmt.Sprintf("%s.broken-%s", s.Path, time.Now().UTC().Format("20060102T150405.000000000Z"))
		if rerr := os.Rename(s.Path, aside); rerr != nil {
			return fmt.Errorf("update allowlist: %v; and moving it aside failed: %w", err, rerr)
		}
		s.warn("%v; moved it to %s and started a new one", err, aside)
		l = &Allowlist{}
	} else if err != nil {
		return fmt.Errorf("update allowlist: %w", err)
	}
	if err := change(l); err != nil {
		return err
	}
	data, _ := l.MarshalJSON()
	return writeAtomic(s.Path, data, 0o600)
}

// Record adds approvals, replacing any earlier entry of the same pair.
func (s Store) Record(approvals ...Approval) error {
	return s.Update(func(l *Allowlist) error {
		for _, a := range approvals {
			l.Add(a)
		}
		return nil
	})
}

// Revoke removes every entry with command, whatever its event, and returns how
// many went.
func (s Store) Revoke(command string) (int, error) {
	removed, err := s.RevokeEntries(command)
	return len(removed), err
}

// RevokeEntries removes every entry with command, whatever its event, and
// returns the entries that went, in file order. When none matches, the file
// is left as it was.
func (s Store) RevokeEntries(command string) ([]Approval, error) {
	var removed []Approval
	err := s.Update(func(l *Allowlist) error {
		kept := make([]Approval, 0, len(l.Approvals))
		for _, a := range l.Approvals {
			if a.Command == command {
				removed = append(removed, a)
				continue
			}
			kept = append(kept, a)
		}
		if len(removed) == 0 {
			return errUnchanged
		}
		l.Approvals, l.index = kept, nil
		return nil
	})
	if errors.Is(err, errUnchanged) {
		err = nil
	}
	return removed, err
}

// errUnchanged stops an Update that has nothing to write.
var errUnchanged = errors.New("allowlist unchanged")

// NewApproval makes the record of approving (event, command) now, bound to
// the file and content of b.
func NewApproval(event, command string, b Binding, now time.Time) Approval {
	a := Approval{Event: event, Command: command, ApprovedAt: now.UTC().Format(time.RFC3339)}
	if !b.Mtime.IsZero() {
		a.ScriptMtime = b.Mtime.UTC().Format(time.RFC3339Nano)
	}
	if b.SHA256 != "" {
		a.ScriptPath, a.ScriptSHA256 = b.Path, b.SHA256
	}
	return a
}

// scriptExtensions mark the token of a command line that is the script (SPEC §5).
var scriptExtensions = []string{".sh", ".bash", ".zsh", ".fish", ".py", ".rb", ".pl", ".lua", ".js", ".mjs", ".cjs", ".ts"}

// Script returns the token of a command line that names its script: the first
// with a script extension, else the first holding "/" or starting with "~",
// else the first. The tokens are split by shell rules, falling back to blanks
// for a line that does not parse.
func Script(command string, split func(string) ([]string, error)) string {
	tokens, err := split(command)
	if err != nil || len(tokens) == 0 {
		tokens = strings.Fields(command)
	}
	if len(tokens) == 0 {
		return ""
	}
	for _, t := range tokens {
		for _, ext := range scriptExtensions {
			if strings.HasSuffix(t, ext) {
				return t
			}
		}
	}
	for _, t := range tokens {
		if strings.Contains(t, "/") || strings.HasPrefix(t, "~") {
			return t
		}
	}
	return tokens[0]
}
