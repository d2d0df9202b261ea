//go:build unix

package session

import (
	"strings"
	"testing"
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
