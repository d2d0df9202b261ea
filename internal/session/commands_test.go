package session

import (
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/yieldshell/yieldshell/prompt"
)

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

// Several lines written to an integrated shell at once: the shell prints a
// prompt after each command while the next lines are still queued in the
// terminal or in its own buffer; it waits for a command only at the prompt after the last one,
// and the answer then has each command's exit code in order (issue 15
// item 4).
func TestShellWaitsAfterTheLastLineWritten(t *testing.T) {
	// An integrated shell's terminal: whether lines written to it are
	// still queued there (typeahead), or the shell took them into its own
	// buffer (busy).
	var busy atomic.Bool
	m, e, k := fakeManager(t, nil, nil)
	k.script(prompt.Unknown, func(in prompt.Input) prompt.Probe {
		if in.Only != 0 && busy.Load() {
			return prompt.Probe{Activity: prompt.Busy}
		}
		return prompt.Probe{Activity: prompt.Polling}
	})
	p, err := m.Start(t.Context(), spec("sleep 30", true))
	if err != nil {
		t.Fatal(err)
	}
	f := e.started()[0]
	p.in.integrated = true // as for a shell exec started
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
	f.setTypeahead(true) // "sleep 0.5; echo one\necho two\n(exit 4)\n"
	for i, code := range []string{"0", "0"} {
		marks("C", "D;"+code, "A", "B")
		if i == 1 {
			// The shell took the last line into its own buffer.
			f.setTypeahead(false)
			busy.Store(true)
		}
		if st := p.evalInput(noProbe); st.Waiting {
			t.Fatalf("after command %d, lines still to run: %+v", i+1, st)
		}
	}
	busy.Store(false)
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
