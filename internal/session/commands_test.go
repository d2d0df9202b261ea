//go:build unix

package session

import (
	"slices"
	"testing"
	"time"

	"github.com/yieldshell/yieldshell/internal/prompt"
)

func (raceKernel) shellBusy() bool { return false }
func (raceKernel) typeahead() bool { return false }

func TestCommandCodesSince(t *testing.T) {
	var c commandCodes
	if got := c.since(0); got != nil {
		t.Errorf("since(0) of none = %v, want nil", got)
	}
	for i := range maxCodes + 10 {
		c.add(i)
	}
	if got := c.since(c.n); got != nil {
		t.Errorf("since(all) = %v, want nil", got)
	}
	if got := c.since(c.n - 3); !slices.Equal(got, []int{maxCodes + 7, maxCodes + 8, maxCodes + 9}) {
		t.Errorf("since(n-3) = %v", got)
	}
	if got := c.since(0); len(got) != maxCodes || got[0] != 10 {
		t.Errorf("since(0) kept %d codes from %d, want the newest %d", len(got), got[0], maxCodes)
	}
}

// shellKernel is an integrated shell's terminal: whether lines written to
// it are still queued.
type shellKernel struct{ queued, busy *bool }

func (shellKernel) pending() bool         { return false }
func (shellKernel) inspect() prompt.Probe { return prompt.Probe{Activity: prompt.Polling} }
func (k shellKernel) shellBusy() bool     { return *k.queued || *k.busy }
func (k shellKernel) typeahead() bool     { return *k.queued }

// Several lines written to an integrated shell at once: the shell prints a
// prompt after each command while the next lines are still queued in the
// terminal or in its own buffer; it waits for a command only at the prompt after the last one,
// and the answer then has each command's exit code in order (issue 15
// item 4).
func TestShellWaitsAfterTheLastLineWritten(t *testing.T) {
	m := newTestManager(t, nil)
	p, err := m.Start(t.Context(), spec("sleep 30", true))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	queued, busy := false, false
	p.in.kernel = shellKernel{&queued, &busy}
	marks := func(ms ...string) {
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, s := range ms {
			m := prompt.Mark{Code: 133, Kind: s[0]}
			if len(s) > 2 {
				m.Args = s[2:]
			}
			p.in.mark(m, p.out.line)
		}
		p.in.outputs++
		p.in.lastOutput = time.Now()
	}
	marks("A", "B")
	if st := p.evalInput(noProbe); !st.Waiting || st.Kind != prompt.KindCommand {
		t.Fatalf("at the first prompt: %+v", st)
	}
	p.beforeWrite()
	queued = true // "sleep 0.5; echo one\necho two\n(exit 4)\n"
	for i, code := range []string{"0", "0"} {
		marks("C", "D;"+code, "A", "B")
		if i == 1 {
			// The shell took the last line into its own buffer.
			queued, busy = false, true
		}
		if st := p.evalInput(noProbe); st.Waiting {
			t.Fatalf("after command %d, lines still to run: %+v", i+1, st)
		}
	}
	busy = false
	marks("C")
	marks("D;4", "A", "B")
	if st := p.evalInput(noProbe); !st.Waiting || st.Signal != SignalMark {
		t.Fatalf("after the last command: %+v", st)
	}
	if got := p.CommandExits(); !slices.Equal(got, []int{0, 0, 4}) {
		t.Errorf("CommandExits() = %v, want [0 0 4]", got)
	}
	p.beforeWrite()
	if got := p.CommandExits(); got != nil {
		t.Errorf("CommandExits() after the next write = %v, want none", got)
	}
}

// readKernel is a program blocked reading its terminal, with or without
// input queued there that it has not taken yet.
type readKernel struct{ queued bool }

func (readKernel) pending() bool         { return false }
func (readKernel) inspect() prompt.Probe { return prompt.Probe{Activity: prompt.Reading} }
func (readKernel) shellBusy() bool       { return false }
func (k readKernel) typeahead() bool     { return k.queued }

// A program seen blocked reading while what was written to it still waits
// unread in the terminal has not been scheduled since the write (a loaded
// machine): it is not waiting for input, even once the quiet period has
// passed (TestPromptCat at -count=200: a Ctrl-C written, cat reported
// waiting at its old read).
func TestReaderWithTypeaheadIsNotWaiting(t *testing.T) {
	m := newTestManager(t, nil)
	p, err := m.Start(t.Context(), spec("sleep 30", true))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	p.beforeWrite()
	p.mu.Lock()
	p.in.wrote.at = time.Now().Add(-time.Second) // the quiet period passed
	p.in.lastOutput = p.in.wrote.at
	p.mu.Unlock()
	p.in.kernel = readKernel{queued: true}
	if st := p.evalInput(0); st.Waiting {
		t.Fatalf("waiting with the input unread: %+v", st)
	}
	p.in.kernel = readKernel{}
	if st := p.evalInput(0); !st.Waiting || st.Signal != SignalTTY {
		t.Fatalf("once the input is taken: %+v; want waiting (tty_read)", st)
	}
}
