//go:build unix

package session

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/yieldshell/yieldshell/internal/prompt"
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

// raceKernel stands for the kernel at the moment of the input-wait race:
// the program has printed its prompt and blocked reading, and the reader
// has taken the prompt from the terminal but not put it in the log yet.
type raceKernel struct {
	onInspect func()
	// held: the stream's reader holds bytes from the moment inspect
	// returns (its read returned them just after the kernel was asked).
	held *bool
}

func (k raceKernel) pending() bool { return k.held != nil && *k.held }

func (k raceKernel) inspect() prompt.Probe {
	if k.onInspect != nil {
		k.onInspect()
	}
	if k.held != nil {
		*k.held = true
	}
	return prompt.Probe{Activity: prompt.Reading}
}

// Bytes the stream's reader took from the terminal just after the kernel
// saw the program blocked reading, and holds before the session sees them,
// keep the program from being reported waiting (issue 15, the race below
// the session).
func TestInputWaitWaitsForOutputHeldByTheReader(t *testing.T) {
	m := newTestManager(t, nil)
	p, err := m.Start(t.Context(), spec("sleep 30", true))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = p.Stop(context.Background(), syscall.SIGKILL, 0, EndedByStop) })
	held := false
	p.in.kernel = raceKernel{held: &held}
	if st := p.evalInput(0); st.Waiting {
		t.Fatalf("waiting with the prompt held by the reader: %+v", st)
	}
}

// A program seen reading while its prompt is still on its way to the log
// is not reported waiting until the prompt is in the log, and then it is,
// with the prompt (issue 15: waiting_for_input with no prompt and next_seq
// 0).
func TestInputWaitWaitsForOutputInFlight(t *testing.T) {
	m := newTestManager(t, nil)
	p, err := m.Start(t.Context(), spec("sleep 30", true))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = p.Stop(context.Background(), syscall.SIGKILL, 0, EndedByStop) })

	// The reader took the prompt from the terminal just as the kernel was
	// asked.
	p.in.kernel = raceKernel{onInspect: func() { p.in.inFlight.Add(1) }}
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

	p.in.kernel = raceKernel{}
	st := p.evalInput(0)
	if !st.Waiting || st.Signal != SignalTTY || st.Prompt != ">>> " {
		t.Fatalf("after the prompt reached the log: %+v; want waiting at %q (tty_read)", st, ">>> ")
	}
}
