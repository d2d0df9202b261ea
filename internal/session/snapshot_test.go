package session

import (
	"reflect"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/yieldshell/yieldshell/prompt"
)

// flipKernel answers the input-wait probe Reading and Busy in turn, so
// that two evaluations in one answer would disagree. A test that needs
// output to arrive just after the verdict sets the fake process's
// onTypeahead: detection asks about typed-ahead input after it checked
// that no output arrived while the kernel was asked.
type flipKernel struct {
	mu    sync.Mutex
	asked int
}

func (k *flipKernel) Inspect(prompt.Input) prompt.Probe {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.asked++
	if k.asked%2 == 0 {
		return prompt.Probe{Activity: prompt.Busy}
	}
	return prompt.Probe{Activity: prompt.Reading}
}

func (k *flipKernel) Switches(prompt.Task) (uint64, bool) { return 0, false }
func (k *flipKernel) Programs(prompt.Input) []string      { return nil }
func (k *flipKernel) Listening(int) []int                 { return nil }

func (k *flipKernel) count() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.asked
}

// Spec: issue 31 item 2: "every tool builds its answer from one value taken
// under one lock ... (a test with a fake kernel shows it)".
//
// A snapshot asks the kernel once, and its input state is of the same
// instant as its output: the prompt is the output's last line.
func TestSnapshotEvaluatesInputOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := &flipKernel{}
		p := bareProcess(k)
		p.emit("hello\nname? ")
		time.Sleep(10 * time.Millisecond) // quiet: the kernel is asked
		q := Query{MaxBytes: 1 << 10, Streams: Both, Input: InputNow}
		for i := range 4 {
			s := p.Snapshot(q)
			if got := k.count(); got != i+1 {
				t.Fatalf("snapshot %d: the kernel was asked %d times in all, want %d", i, got, i+1)
			}
			waiting := i%2 == 0 // the kernel's answer this time
			if s.Input.Waiting != waiting {
				t.Errorf("snapshot %d: waiting %v, want %v (the kernel's one answer)", i, s.Input.Waiting, waiting)
			}
			if s.Input.Waiting && (s.Input.Prompt != "name? " || !strings.HasSuffix(string(s.Stdout), s.Input.Prompt)) {
				t.Errorf("snapshot %d: prompt %q is not the end of its output %q", i, s.Input.Prompt, s.Stdout)
			}
			if !s.Input.Waiting && !reflect.DeepEqual(s.Input, InputState{}) {
				t.Errorf("snapshot %d: not waiting, but %+v", i, s.Input)
			}
		}
		if s := p.Snapshot(Query{Look: true}); !reflect.DeepEqual(s.Input, InputState{}) || k.count() != 4 {
			t.Errorf("a snapshot that asks no input state asked the kernel, or has one: %+v", s.Input)
		}
	})
}

// A wait that ends because the program waits for input answers from the
// snapshot taken with its verdict: output that arrived after the kernel was
// asked (a second prompt) makes it decide again, so the verdict, the prompt
// and the output agree.
func TestAwaitAnswerIsOfTheVerdictsInstant(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := &flipKernel{}
		p := bareProcess(k)
		p.engine().(*fakeProc).onTypeahead = func() { p.emit("\nage? ") }
		p.emit("name? ")
		q := Query{MaxBytes: 1 << 10, Streams: Both, Input: InputNow}
		o := p.Await(t.Context(), time.Now().Add(10*time.Second), Until{InputWait: true, Answer: &q})
		if o.Reason != ReasonInputWait || o.Snapshot == nil {
			t.Fatalf("outcome %+v, want an input wait with its snapshot", o)
		}
		s := p.After(o, q)
		if !reflect.DeepEqual(s.Input, o.Input) || s.Input.Prompt != "age? " || string(s.Stdout) != "name? \nage? " {
			t.Errorf("verdict %+v, answer input %+v, output %q: want the second prompt in all", o.Input, s.Input, s.Stdout)
		}
		// Reading (stale: output came), Busy, Reading: three answers.
		if got := k.count(); got != 3 {
			t.Errorf("the kernel was asked %d times, want 3", got)
		}
	})
}

// The log file shows the screen when the output goes quiet, without
// committing it; when the log gets the rows, the file adds only what it
// does not show yet, and rows redrawn since it showed them again.
func TestLogFileShowsTheScreenAhead(t *testing.T) {
	type step struct {
		screen, logged string // one of them
	}
	tests := []struct {
		name  string
		steps []step
		want  string
	}{
		{"redrawn line", []step{{screen: "step 1"}, {screen: "step 2"}, {logged: "done\n"}}, "step 1\nstep 2\ndone\n"},
		{"shown, then logged", []step{{screen: "Listening on :80\n"}, {screen: "Listening on :80\n"}, {logged: "Listening on :80\n"}, {logged: "GET /\n"}}, "Listening on :80\nGET /\n"},
		{"logged in parts", []step{{screen: "a\nb\n"}, {logged: "a\n"}, {logged: "b\nc\n"}}, "a\nb\nc\n"},
		{"line goes on", []step{{screen: "50%"}, {screen: "50% 60%"}, {logged: "50% 60% done\n"}}, "50% 60% done\n"},
		{"rows redrawn", []step{{screen: "A: 0%\nB: 0%\n"}, {logged: "A: 0%\nB: 5%\n"}}, "A: 0%\nB: 0%\nA: 0%\nB: 5%\n"},
	}
	for _, tt := range tests {
		var f diskFollower
		var file []byte
		for _, s := range tt.steps {
			if s.logged != "" {
				file = f.settle(file, []byte(s.logged))
			} else {
				file, _ = f.show(file, []byte(s.screen))
			}
		}
		if string(file) != tt.want {
			t.Errorf("%s: file %q, want %q", tt.name, file, tt.want)
		}
	}
}
