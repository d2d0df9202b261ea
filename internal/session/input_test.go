//go:build unix

package session

import (
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/yieldshell/yieldshell/prompt"
)

func TestWriteWaitsForTheNextPrompt(t *testing.T) {
	m := newTestManager(t, nil)
	for _, tty := range []bool{true, false} {
		s := spec(`printf "1? "; read a; n=0; while [ $n -lt 20000 ]; do n=$((n+1)); done; printf "2? "; read b; echo "$a$b"`, tty)
		p, err := m.Start(t.Context(), s)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Close() })
		if o := p.Await(t.Context(), time.Now().Add(10*time.Second), Until{InputWait: true}); o.Reason != ReasonInputWait || o.Input.Prompt != "1? " {
			t.Fatalf("tty=%v first prompt: %+v", tty, o)
		}
		if err := p.Type(t.Context(), "x", nil, true, false); err != nil {
			t.Fatal(err)
		}
		o := p.Await(t.Context(), time.Now().Add(10*time.Second), Until{InputWait: true})
		if o.Reason != ReasonInputWait || !strings.HasSuffix(o.Input.Prompt, "2? ") {
			t.Errorf("tty=%v after the write: %+v, want the second prompt", tty, o)
		}
		if err := p.Type(t.Context(), "y", nil, true, false); err != nil {
			t.Fatal(err)
		}
		if r := p.WaitEnd(t.Context(), time.Now().Add(10*time.Second)); r != ReasonExited {
			t.Errorf("tty=%v end: %s", tty, r)
		}
	}
}

// Bytes the stream's reader took from the terminal just after the kernel
// saw the program blocked reading, and holds before the session sees them,
// keep the program from being reported waiting (issue 15, the race below
// the session).
func TestInputWaitWaitsForOutputHeldByTheReader(t *testing.T) {
	// The kernel sees the program blocked reading; the reader's read
	// returns its prompt just after.
	m, e, k := fakeManager(t, nil, nil)
	p, err := m.Start(t.Context(), spec("sleep 30", true))
	if err != nil {
		t.Fatal(err)
	}
	f := e.started()[0]
	k.script(prompt.Unknown, func(prompt.Input) prompt.Probe {
		f.setPending(true)
		return prompt.Probe{Activity: prompt.Reading}
	})
	if st := p.evalInput(0); st.Waiting {
		t.Fatalf("waiting with the prompt held by the reader: %+v", st)
	}
}

// A program seen reading while its prompt is still on its way to the log
// is not reported waiting until the prompt is in the log, and then it is,
// with the prompt (issue 15: waiting_for_input with no prompt and next_seq
// 0).
func TestInputWaitWaitsForOutputInFlight(t *testing.T) {
	m, _, k := fakeManager(t, nil, nil)
	p, err := m.Start(t.Context(), spec("sleep 30", true))
	if err != nil {
		t.Fatal(err)
	}

	// The reader took the prompt from the terminal just as the kernel was
	// asked.
	k.script(prompt.Unknown, func(prompt.Input) prompt.Probe {
		p.in.inFlight.Add(1)
		return prompt.Probe{Activity: prompt.Reading}
	})
	if st := p.evalInput(0); st.Waiting {
		t.Fatalf("waiting with the prompt in flight: %+v", st)
	}
	// The reader puts it in the log.
	p.mu.Lock()
	p.out.append(p.log, Stdout, []byte(">>> "), &scratch{}, false)
	p.in.outputs++
	p.in.lastOutput = time.Now()
	p.in.inFlight.Add(-1)
	p.broadcast()
	p.mu.Unlock()

	k.script(prompt.Reading, nil)
	st := p.evalInput(0)
	if !st.Waiting || st.Signal != SignalTTY || st.Prompt != ">>> " {
		t.Fatalf("after the prompt reached the log: %+v; want waiting at %q (tty_read)", st, ">>> ")
	}
}

// TestSignalConfidence: every signal says what it rests on, and a verdict
// from the prompt's text alone says so.
func TestSignalConfidence(t *testing.T) {
	for sig, want := range map[Signal]Confidence{
		SignalMark: ConfidenceHigh, SignalTTY: ConfidenceHigh, SignalStdin: ConfidenceHigh,
		SignalTTYMode: ConfidenceMedium, SignalQuiet: ConfidenceLow, "": "",
	} {
		if got := sig.Confidence(); got != want {
			t.Errorf("%q: %q, want %q", sig, got, want)
		}
	}
}

// TestTimedWait: an event loop whose wait holds the input and a timer is
// the timer's, unless the line is a REPL's bare prompt; what it decides
// rests on the text.
//
// Spec: issue 32 item 1: "a poll with a finite timeout is a timer unless
// other evidence says otherwise".
func TestTimedWait(t *testing.T) {
	tests := []struct {
		line string
		want bool
	}{
		{"> ", true},
		{">>> ", true},
		{"Signing in as ada: ", false},
		{"Password: ", false},
		// A question that names its answers or a default waits, timer
		// or not: npm init asks under node's start-up timer, and a
		// question with a timeout is still a question.
		{"Continue? [y/N] ", true},
		{"version: (1.0.0) ", true},
		{"Is this OK? ", true},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				k := &fakeProber{start: time.Now()}
				k.script(prompt.Busy, func(prompt.Input) prompt.Probe { return prompt.Probe{Activity: prompt.Busy, Timed: true} })
				p := bareProcess(k)
				p.emit(tt.line)
				o := p.Await(t.Context(), time.Now().Add(time.Second), Until{InputWait: true})
				if got := o.Reason == ReasonInputWait; got != tt.want {
					t.Fatalf("%q: %+v, want waiting %v", tt.line, o, tt.want)
				}
				if tt.want && (o.Input.Signal != SignalQuiet || o.Input.Confidence != ConfidenceLow) {
					t.Errorf("%q: %+v, want quiet_prompt, low", tt.line, o.Input)
				}
				// Busy without a timer is never waiting.
				k.script(prompt.Busy, nil)
				if st := p.InputState(); st.Waiting {
					t.Errorf("%q, busy: %+v", tt.line, st)
				}
			})
		})
	}
}

// A loop that wakes from its timer and waits again with nothing printed
// (IPython's 500 ms) waits at its prompt; one whose thread has not woken
// (a sleep after a line) does not, however long it is looked at.
func TestTimedWaitIdleLoop(t *testing.T) {
	for _, wakes := range []bool{true, false} {
		t.Run(fmt.Sprintf("wakes=%v", wakes), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				k := &fakeProber{start: time.Now()}
				var n uint64
				k.switches = func() uint64 {
					if wakes {
						n++
					}
					return n
				}
				k.script(prompt.Busy, func(prompt.Input) prompt.Probe {
					return prompt.Probe{Activity: prompt.Busy, Timed: true, Waiter: prompt.Task{Pid: 1000, Tid: 1000}}
				})
				p := bareProcess(k)
				p.emit("Signing in as ada: ") // a line that is no REPL prompt and asks nothing
				o := p.Await(t.Context(), time.Now().Add(2*time.Second), Until{InputWait: true})
				if got := o.Reason == ReasonInputWait; got != wakes {
					t.Fatalf("%+v, want waiting %v", o, wakes)
				}
				if wakes && o.Input.Confidence != ConfidenceLow {
					t.Errorf("%+v, want low confidence", o.Input)
				}
			})
		})
	}
}

// A timer that outlives a prompt is not the next line's: npm init asks
// "description: " while node's start-up timer, already seen at the
// question before, runs on; a timer armed after the line ("Signing in as
// ada: ", then a 3 s sleep) ends later than any seen before it.
func TestTimedWaitOldTimer(t *testing.T) {
	for _, same := range []bool{true, false} {
		t.Run(fmt.Sprintf("same timer=%v", same), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				k := &fakeProber{start: time.Now()}
				k.switches = func() uint64 { return 7 } // never wakes
				deadline := time.Now().Add(8 * time.Second)
				k.script(prompt.Busy, func(prompt.Input) prompt.Probe {
					return prompt.Probe{Activity: prompt.Busy, Timed: true, Waiter: prompt.Task{Pid: 1000, Tid: 1000}, Timeout: time.Until(deadline)}
				})
				p := bareProcess(k)
				p.emit("version: (1.0.0) ")
				if o := p.Await(t.Context(), time.Now().Add(time.Second), Until{InputWait: true}); o.Reason != ReasonInputWait {
					t.Fatalf("at the question with a default: %+v", o)
				}
				time.Sleep(300 * time.Millisecond)
				p.emit("\ndescription: ")
				if !same {
					deadline = time.Now().Add(3 * time.Second)
				}
				o := p.Await(t.Context(), time.Now().Add(2*time.Second), Until{InputWait: true})
				if got := o.Reason == ReasonInputWait; got != same {
					t.Fatalf("%+v, want waiting %v", o, same)
				}
			})
		})
	}
}
