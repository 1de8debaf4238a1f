//go:build unix

package dispatch

import (
	"context"
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/noora-hooks/noora-hooks/protocol"
)

// sleepy answers after a random pause, so that hooks finish out of order.
type sleepy struct {
	name   string
	answer protocol.Answer
	max    time.Duration
}

func (s sleepy) Describe() HookInfo { return HookInfo{Source: "test", Name: s.name} }
func (s sleepy) Run(ctx context.Context, _ Call) Result {
	time.Sleep(time.Duration(rand.Int63n(int64(s.max))))
	return Result{HookInfo: s.Describe(), Status: StatusOK, Answer: s.answer}
}

type fixed []Hook

func (f fixed) Hooks(context.Context, Call) []Hook { return f }

func mustKwargs(t testing.TB, s string) protocol.Kwargs {
	kw, err := protocol.ParseObject([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return kw
}

func obj(t testing.TB, s string) protocol.Object { return mustKwargs(t, s) }

func TestConcurrentAnswerEqualsSequentialAnswer(t *testing.T) {
	kw := mustKwargs(t, `{"tool_name":"terminal","args":{"command":"ls","cwd":"/"}}`)
	var hooks fixed
	for i := 0; i < 40; i++ {
		var a protocol.Answer
		switch i % 5 {
		case 0:
			a = protocol.Answer{Kind: protocol.Modify, Args: obj(t, fmt.Sprintf(`{"k%d":%d,"command":"ls -%d"}`, i%3, i, i))}
		case 1:
			a = protocol.Answer{Kind: protocol.Approve, Message: fmt.Sprintf("approve %d", i)}
		case 3:
			if i > 20 {
				a = protocol.Answer{Kind: protocol.Block, Message: fmt.Sprintf("block %d", i)}
			}
		}
		hooks = append(hooks, sleepy{name: fmt.Sprint(i), answer: a, max: 5 * time.Millisecond})
	}
	call := Call{Event: mustEvent(t, protocol.PreToolCall), Kwargs: kw}
	seq := (&Dispatcher{Sources: []Source{hooks}, Concurrency: 1}).Fire(context.Background(), call)
	want, _ := seq.Combined.MarshalJSON()
	for run := 0; run < 50; run++ {
		got := (&Dispatcher{Sources: []Source{hooks}, Concurrency: 16}).Fire(context.Background(), call)
		b, _ := got.Combined.MarshalJSON()
		if string(b) != string(want) {
			t.Fatalf("run %d: concurrent answer\n%s\nsequential answer\n%s", run, b, want)
		}
		for i, r := range got.Results {
			if r.Name != fmt.Sprint(i) {
				t.Fatalf("run %d: result %d is hook %s", run, i, r.Name)
			}
		}
	}
}

func mustEvent(t testing.TB, name string) protocol.Event {
	e, ok := protocol.Lookup(name)
	if !ok {
		t.Fatalf("no event %s", name)
	}
	return e
}

func TestThePayloadIsBuiltOncePerDispatch(t *testing.T) {
	call := shareStdin(Call{Event: mustEvent(t, "on_session_start"), Kwargs: mustKwargs(t, `{"session_id":"s"}`), Cwd: "/w"})
	a, b := call.Payload(), call.Payload()
	if &a[0] != &b[0] {
		t.Error("two hooks of one dispatch built the payload twice")
	}
	if string(a) != `{"hook_event_name":"on_session_start","tool_name":null,"tool_input":null,"session_id":"s","cwd":"/w","extra":{}}`+"\n" {
		t.Errorf("payload %s", a)
	}
}
