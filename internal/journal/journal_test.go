package journal

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/noora-hooks/noora-hooks/internal/dispatch"
	"github.com/noora-hooks/noora-hooks/internal/runner"
	"github.com/noora-hooks/noora-hooks/protocol"
)

func TestRedact(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"a token under a secret-looking key is redacted at any depth", `{"args":{"env":{"GITHUB_TOKEN":"ghp_x"}}}`, `{"args":{"env":{"GITHUB_TOKEN":"[redacted]"}}}`},
		{"passwords, api keys and authorization headers are redacted", `{"password":"p","api-key":"k","Authorization":"Bearer x"}`, `{"password":"[redacted]","api-key":"[redacted]","Authorization":"[redacted]"}`},
		{"a secret object is redacted whole", `{"credentials":{"user":"u","pass":"p"}}`, `{"credentials":"[redacted]"}`},
		{"a token count is a number and is kept", `{"max_tokens":100}`, `{"max_tokens":100}`},
		{"ordinary keys are kept, in order", `{"session_id":"s1","command":"ls","b":[1,true,null]}`, `{"session_id":"s1","command":"ls","b":[1,true,null]}`},
		{"a bearer token inside a string is redacted", `{"command":"curl -H 'Authorization: Bearer abcdefghijkl' x"}`, `{"command":"curl -H 'Authorization: Bearer [redacted]' x"}`},
		{"a key=value secret inside a string is redacted", `["export API_KEY=sk-123 && run"]`, `["export API_KEY=[redacted] && run"]`},
		{"invalid JSON becomes one redacted string", `token=abc {`, `"token=[redacted] {"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(Redact([]byte(tt.in))); got != tt.want {
				t.Errorf("Redact(%s) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}

func TestRedactText(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"a GitHub token is redacted", "using ghp_abcdefghijklmnopqrstuvwxyz0123", "using [redacted]"},
		{"an sk- key is redacted", "key sk-abcdefghijklmnopqrstu end", "key [redacted] end"},
		{"a JSON-ish secret pair is redacted", `"client_secret": "abc"`, `"client_secret": "[redacted]"`},
		{"plain text is kept", "exit status 2: blocked rm -rf", "exit status 2: blocked rm -rf"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := RedactText(tt.in); got != tt.want {
				t.Errorf("RedactText(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func kwargs(t *testing.T, s string) protocol.Kwargs {
	t.Helper()
	kw, err := protocol.ParseKwargs([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return kw
}

func firing(t *testing.T) Firing {
	code := 0
	ran := dispatch.HookInfo{Source: "shell", Name: "./b.sh", Where: "c.yaml:8"}
	refused := dispatch.HookInfo{Source: "shell", Name: "./c.sh", Where: "c.yaml:12"}
	passed := dispatch.HookInfo{Source: "shell", Name: "./a.sh", Where: "c.yaml:4"}
	return Firing{
		Time: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC), Via: "exec", Event: "pre_tool_call",
		Kwargs: kwargs(t, `{"tool_name":"terminal","args":{"command":"ls","token":"t0k"},"session_id":"s1","telemetry_schema_version":"noora.observer.v1"}`),
		Report: dispatch.Report{
			Combined: protocol.Combined{Event: "pre_tool_call", Answer: protocol.Object{{Key: "action", Value: protocol.String("block")}}},
			Results: []dispatch.Result{
				{HookInfo: ran, Status: dispatch.StatusOK, ExitCode: &code, Duration: 12 * time.Millisecond, Answer: protocol.Answer{Kind: protocol.Block}, Drift: "its content changed",
					Outcome: &runner.Outcome{Stdout: []byte(`{"action":"block"}`), Stderr: []byte(strings.Repeat("é", 400))}},
				{HookInfo: refused, Status: dispatch.StatusSkipped, Warnings: []dispatch.Warning{dispatch.Warn("not approved")}},
			},
			Skips: []dispatch.Skip{
				{Hook: passed, Where: passed.Where, Reason: dispatch.SkipMatcher, Detail: `matcher "patch" does not match tool "terminal"`},
				{Hook: refused, Where: refused.Where, Reason: dispatch.SkipNotApproved, Detail: "not in the allowlist"},
			},
		},
	}
}

func TestBuild(t *testing.T) {
	rec := Build(firing(t))
	var got []string
	for _, h := range rec.Hooks {
		got = append(got, fmt.Sprintf("%s ran=%v %s", h.Hook, h.Ran, h.Reason))
	}
	want := []string{"./a.sh ran=false matcher", "./b.sh ran=true ", "./c.sh ran=false not_approved"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("hooks in config order with their reasons:\n got %q\nwant %q", got, want)
	}
	b := rec.Hooks[1]
	if !b.Drift || b.Answer != "block" || b.ExitCode == nil || b.DurationMS != 12 {
		t.Errorf("the hook that ran = %+v, want drift, block, exit 0, 12 ms", b)
	}
	if len(b.Stderr) > ExcerptBytes+len("…") || !strings.HasSuffix(b.Stderr, "…") || !json.Valid(protocol.String(b.Stderr)) {
		t.Errorf("stderr excerpt is %d bytes, want at most %d, cut at a rune", len(b.Stderr), ExcerptBytes)
	}
	if string(rec.Kwargs) != `{"tool_name":"terminal","args":{"command":"ls","token":"[redacted]"},"session_id":"s1"}` {
		t.Errorf("kwargs = %s, want redacted, without the telemetry marker", rec.Kwargs)
	}
	if rec.Session != "s1" || rec.Tool != "terminal" || !rec.Blocked() {
		t.Errorf("record = %+v, want session s1, tool terminal, blocked", rec)
	}
}

func TestLineIsBounded(t *testing.T) {
	f := firing(t)
	big := strings.Repeat("x", 100<<10)
	for i := 0; i < 2000; i++ {
		f.Report.Skips = append(f.Report.Skips, dispatch.Skip{Hook: dispatch.HookInfo{Source: "shell", Name: fmt.Sprint("h", i)}, Reason: dispatch.SkipMatcher, Detail: big})
	}
	line := Build(f).Line()
	if len(line) > MaxLine {
		t.Fatalf("line is %d bytes, want at most %d", len(line), MaxLine)
	}
	rec, err := ParseLine(bytes.TrimSpace(line))
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Hooks) != MaxHooks || rec.HooksOmitted != 2003-MaxHooks {
		t.Errorf("kept %d hooks and omitted %d, want %d and %d", len(rec.Hooks), rec.HooksOmitted, MaxHooks, 2003-MaxHooks)
	}
}

func TestWriterRotatesAndIsPrivate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "logs", FileName)
	w := NewWriter(path, Options{MaxBytes: 4 << 10})
	for i := 0; i < 40; i++ {
		w.Add(firing(t))
		time.Sleep(time.Millisecond) // let the queue drain now and then: batches of several sizes
	}
	w.Close(10 * time.Second)
	for _, p := range []string{path, path + ".1"} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatalf("stat %s: %v", p, err)
		}
		if st.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v, want 0600", p, st.Mode().Perm())
		}
		if st.Size() > 8<<10 {
			t.Errorf("%s is %d bytes, want about the 4 KiB bound", p, st.Size())
		}
	}
	n := 0
	bad, _, err := ReadAll(path, Filter{}, func(Record) error { n++; return nil })
	if err != nil || bad != 0 || n == 0 {
		t.Errorf("ReadAll: %d records, %d bad, %v; want some, none bad", n, bad, err)
	}
}

func TestWritersOfSeveralProcessesKeepLinesWhole(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := NewWriter(path, Options{}) // one writer per process
			for j := 0; j < 20; j++ {
				w.Add(firing(t))
			}
			w.Close(10 * time.Second)
		}()
	}
	wg.Wait()
	n := 0
	bad, _, err := ReadAll(path, Filter{}, func(Record) error { n++; return nil })
	if err != nil || bad != 0 || n != 160 {
		t.Errorf("ReadAll: %d records, %d bad, %v; want 160, none bad", n, bad, err)
	}
}

func TestOneShotWritesOnClose(t *testing.T) {
	path := filepath.Join(t.TempDir(), "logs", FileName)
	var warnings []string
	w := NewWriter(path, Options{OneShot: true, Queue: 3, Warn: func(m string) { warnings = append(warnings, m) }})
	for i := 0; i < 5; i++ {
		w.Add(firing(t))
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("a one-shot writer wrote before Close (stat: %v)", err)
	}
	w.Close(0) // no grace: Close itself writes
	if w.Add(firing(t)) {
		t.Error("a closed writer took a firing")
	}
	n := 0
	bad, _, err := ReadAll(path, Filter{}, func(Record) error { n++; return nil })
	if err != nil || bad != 0 || n != 3 || w.Dropped() != 2 || len(warnings) != 0 {
		t.Errorf("%d records (%d bad, %v), %d dropped, warnings %q; want the 3 the queue holds, 2 dropped, none", n, bad, err, w.Dropped(), warnings)
	}
	broken := NewWriter("/dev/null/logs/runs.jsonl", Options{OneShot: true, Warn: func(m string) { warnings = append(warnings, m) }})
	broken.Add(firing(t))
	broken.Close(0)
	if len(warnings) != 1 || !strings.Contains(warnings[0], "firings are not recorded") {
		t.Errorf("a journal that cannot be written warned %q, want one warning", warnings)
	}
}

func TestAddNeverWaits(t *testing.T) {
	// A journal in a directory that cannot be created: every write fails,
	// the queue fills, and Add still returns at once.
	w := NewWriter("/dev/null/logs/runs.jsonl", Options{Queue: 1, Warn: func(string) {}})
	done := make(chan struct{})
	go func() {
		for i := 0; i < 1000; i++ {
			w.Add(firing(t))
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Add blocked")
	}
	w.Close(time.Second)
	var nilWriter *Writer
	if nilWriter.Add(firing(t)) {
		t.Error("a nil writer (journal off) took a firing")
	}
}

func TestFilter(t *testing.T) {
	rec := Build(firing(t))
	tests := []struct {
		name string
		f    Filter
		want bool
	}{
		{"no filter takes everything", Filter{}, true},
		{"the event filters", Filter{Event: "post_tool_call"}, false},
		{"the session filters", Filter{Session: "s1"}, true},
		{"a hook substring takes a record that considered it", Filter{Hook: "a.sh"}, true},
		{"a config location is a hook's name too", Filter{Hook: "c.yaml:12"}, true},
		{"a hook nobody considered filters", Filter{Hook: "zzz"}, false},
		{"blocked takes a block", Filter{Blocked: true}, true},
		{"since leaves older records out", Filter{Since: rec.Time.Add(time.Second)}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.f.Match(rec); got != tt.want {
				t.Errorf("Match = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestScanSkipsWhatIsNotARecord(t *testing.T) {
	good := Build(firing(t)).Line()
	in := string(good) + "not json\n" + strings.Repeat("x", MaxReadLine+10) + "\n" + `{"event":""}` + "\n" + string(good)
	n := 0
	bad, err := Scan(strings.NewReader(in), Filter{}, func(Record) error { n++; return nil })
	if err != nil || n != 2 || bad != 3 {
		t.Errorf("Scan = %d records, %d bad, %v; want 2 and 3", n, bad, err)
	}
}

func TestFollowSeesNewRecordsAcrossRotation(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	line := Build(firing(t)).Line()
	if err := os.WriteFile(path, line, 0o600); err != nil { // before Follow: not shown
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	got := make(chan Record, 10)
	go Follow(ctx, path, -1, Filter{}, 10*time.Millisecond, func(r Record) error { got <- r; return nil })
	time.Sleep(100 * time.Millisecond)
	appendTo(t, path, line)
	<-got
	if err := os.Rename(path, path+".1"); err != nil {
		t.Fatal(err)
	}
	appendTo(t, path, line)
	select {
	case <-got:
	case <-ctx.Done():
		t.Fatal("no record after the rotation")
	}
	select {
	case r := <-got:
		t.Fatalf("one record too many: %+v", r)
	case <-time.After(100 * time.Millisecond):
	}
}

func appendTo(t *testing.T, path string, b []byte) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
}

func FuzzRedact(f *testing.F) {
	for _, s := range []string{`{"token":"x"}`, `[{"a":{"password":"p"}}]`, `"Bearer abcdefghij"`, `{"a":1e400}`, `{`, `{"x":"\ud800"}`, strings.Repeat("[", 100)} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out := Redact(in)
		if !json.Valid(out) {
			t.Fatalf("Redact(%q) = %q, not JSON", in, out)
		}
		if bytes.Contains(out, []byte("hunter2")) && bytes.Contains(in, []byte(`"password":"hunter2"`)) {
			t.Fatalf("a password survived: %s", out)
		}
	})
}

func FuzzParseLine(f *testing.F) {
	f.Add(Build(Firing{Time: time.Unix(0, 0), Event: "e"}).Line())
	f.Add([]byte(`{"time":"2026-12-01T10:00:00Z","event":"x","hooks":[{"exit_code":"no"}]}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		rec, err := ParseLine(line)
		if err != nil {
			return
		}
		_ = rec.Blocked()
		_ = Filter{Hook: "x", Blocked: true}.Match(rec)
		if _, err := json.Marshal(rec); err != nil {
			t.Fatalf("a record read back does not write: %v", err)
		}
	})
}

// FuzzLineReadsLikeMarshal: the hand-ordered encoding of a record reads back
// as json.Marshal's encoding of it would (the struct tags stay the schema).
func FuzzLineReadsLikeMarshal(f *testing.F) {
	f.Add("exec", "pre_tool_call", "claude", "./a.sh <x> & \"y\"", "c.yaml:3", "é\xff\u2028", int64(1234), 2, true, `{"a":[1,"b",null]}`)
	f.Add("", "", "", "", "", "", int64(0), 0, false, ``)
	f.Fuzz(func(t *testing.T, via, event, dialect, hook, where, text string, micros int64, code int, flag bool, kw string) {
		micros &= 1<<50 - 1 // a duration
		rec := Record{Time: time.UnixMicro(micros).UTC(), Via: via, Event: event, Dialect: dialect, AgentEvent: text,
			Session: text, Tool: hook, Cwd: where, SafeMode: flag, DurationMS: ms(time.Duration(micros) * time.Microsecond),
			Hooks: []Hook{{Source: "shell", Hook: hook, Where: where, Ran: flag, Reason: text, Detail: text, Drift: flag,
				Status: via, ExitCode: &code, DurationMS: ms(time.Duration(micros)), Answer: event, Stdout: text, Stderr: hook,
				Warnings: []string{text, hook}}, {}},
			HooksOmitted: code,
		}
		if json.Valid([]byte(kw)) {
			if o, err := protocol.ParseObject([]byte(kw)); err == nil {
				rec.Kwargs = bounded(o, "")
				rec.Answer = bounded(o, "a")
			}
		}
		want, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		line := rec.Line()
		if len(line) < MaxLine && !bytes.Equal(decoded(t, line), decoded(t, want)) {
			t.Fatalf("line %s\nreads back unlike json.Marshal's %s", line, want)
		}
	})
}

func TestNumberIsWhatStrconvWrites(t *testing.T) {
	for _, us := range []int64{0, 1, 10, 45, 100, 999, 1000, 1001, 12300, 123456789, 1 << 50} {
		f := ms(time.Duration(us) * time.Microsecond)
		if got, want := string(number(f)), strconv.FormatFloat(f, 'f', -1, 64); got != want {
			t.Errorf("number(%v) = %s, want %s", f, got, want)
		}
	}
	for _, f := range []float64{0.0001, 1.5e-7, -3, 1e300} { // not what ms makes
		if got, want := string(number(f)), strconv.FormatFloat(f, 'f', -1, 64); got != want {
			t.Errorf("number(%v) = %s, want %s", f, got, want)
		}
	}
}

// decoded is a JSON text read into generic values and written again, so
// that two encodings of the same value compare equal.
func decoded(t *testing.T, b []byte) []byte {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	out, _ := json.Marshal(v)
	return out
}
