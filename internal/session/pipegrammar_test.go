package session

import (
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/yieldshell/yieldshell/prompt"
)

// emitTo appends output of one stream the way its reader does.
func (p *Process) emitTo(s Stream, text string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.out.append(p.log, s, []byte(text), &scratch{}, false)
	p.in.outputs++
	p.in.lastOutput = time.Now()
	p.broadcast()
}

// In pipe mode the grammar reads what a person running the command would
// see: stdout and stderr interleaved as they arrived. bash's select prints
// its menu and its prompt on stderr (the first row is bash 5.2's own
// output, as the second-set conformance test records it).
func TestPipeGrammarReadsBothStreams(t *testing.T) {
	type chunk struct {
		s    Stream
		text string
	}
	tests := []struct {
		name  string
		out   []chunk
		kind  prompt.Kind
		items []string
	}{
		{"bash select: all on stderr", []chunk{{Stderr, "1) apple\n2) banana\n3) cherry\nPick a fruit: "}},
			prompt.KindChoice, []string{"apple", "banana", "cherry"}},
		{"a heading on stdout, the menu on stderr", []chunk{{Stdout, "Fruit shop\n"}, {Stderr, "1) apple\n2) banana\n#? "}},
			prompt.KindChoice, []string{"apple", "banana"}},
		{"the menu on stdout, the prompt on stderr", []chunk{{Stdout, "1) apple\n2) banana\n"}, {Stderr, "#? "}},
			prompt.KindChoice, []string{"apple", "banana"}},
		{"output after the menu: no menu at the prompt", []chunk{{Stderr, "1) apple\n2) banana\n"}, {Stdout, "picked apple\n"}, {Stderr, "Name: "}},
			prompt.KindLine, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				k := &fakeProber{start: time.Now(), activity: prompt.Reading}
				p := bareProcess(k)
				for _, c := range tt.out {
					p.emitTo(c.s, c.text)
				}
				o := p.Await(t.Context(), time.Now().Add(10*time.Second), Until{InputWait: true})
				g := o.Input.Grammar
				if o.Reason != ReasonInputWait || o.Input.Kind != tt.kind || g.Kind != tt.kind || !slices.Equal(g.Items, tt.items) {
					t.Errorf("outcome %+v, want %s %q", o, tt.kind, tt.items)
				}
			})
		})
	}
}
