package session

import (
	"strings"

	"github.com/yieldshell/yieldshell/screen"
)

// pendingCap bounds the terminal output kept for a screen nobody has asked
// for yet.
const pendingCap = 128 << 10

// termView is the rendered screen of a PTY-mode process, rendered lazily:
// the emulator is slow (about 20 MB/s) next to the terminal, so output only
// piles up here until someone asks for the screen, and the emulator itself
// is only created then. Past pendingCap the oldest output is dropped (half
// of pendingCap is kept) and the next render starts from a blank emulator:
// full-screen programs redraw far more often than that, so the screen
// still comes out as it is now.
//
// Not safe for concurrent use; the Process locks around it.
type termView struct {
	scr        *screen.Screen // nil until the screen is first asked for
	cols, rows int
	pending    []byte // never more than pendingCap, in length or capacity
	lost       bool
	// frozen is the last rendered state of a process that ended
	// (retention.go): the emulator is released, and answers come from
	// this until the ended runs' budget evicts it.
	frozen *screen.Snapshot
	ended  bool // the output is complete: render once more, then freeze
}

func newTermView(cols, rows int) *termView {
	return &termView{cols: cols, rows: rows}
}

func (v *termView) add(b []byte) {
	if v.frozen != nil {
		return
	}
	if len(v.pending)+len(b) > pendingCap {
		// Keep the newest pendingCap/2 bytes of pending and b, in place.
		keep := pendingCap / 2
		if len(b) >= keep {
			v.pending = append(v.pending[:0], b[len(b)-keep:]...)
		} else {
			old := keep - len(b)
			v.pending = append(append(v.pending[:0], v.pending[len(v.pending)-old:]...), b...)
		}
		v.lost = true
		return
	}
	if len(v.pending)+len(b) > cap(v.pending) {
		grown := make([]byte, len(v.pending), min(max(2*cap(v.pending), len(v.pending)+len(b), 1<<10), pendingCap))
		copy(grown, v.pending)
		v.pending = grown
	}
	v.pending = append(v.pending, b...)
}

// catchUp feeds what is pending to the emulator.
func (v *termView) catchUp() {
	if v.scr == nil || v.lost {
		v.scr = screen.New(v.cols, v.rows)
		v.lost = false
	}
	if len(v.pending) > 0 {
		_, _ = v.scr.Write(v.pending) // Screen.Write never fails
		v.pending = v.pending[:0]
	}
}

func (v *termView) snapshot() screen.Snapshot {
	if v.frozen != nil {
		s := *v.frozen
		s.Lines = append([]string(nil), s.Lines...) // the caller redacts in place
		return s
	}
	v.catchUp()
	s := v.scr.Snapshot()
	if v.ended {
		v.keep(s)
	}
	return s
}

// resize applies a new size after the output written at the old one.
func (v *termView) resize(cols, rows int) {
	if v.frozen != nil {
		return
	}
	v.catchUp()
	v.cols, v.rows = cols, rows
	v.scr.Resize(cols, rows)
}

// cellBytes is what a rendered screen costs per cell (vt10x keeps a glyph
// per cell for the main and the alternate screen): 1000x500 is 16 MB.
const cellBytes = 32

// freeze keeps the screen as it is now and releases the emulator: called
// once a process's output is complete. Nothing rendered or pending: nothing
// to keep.
//
// A screen never rendered keeps its (bounded, counted) pending output
// instead: rendering every finished process's screen just in case would
// cost more than the bytes; the first look renders and freezes it.
func (v *termView) freeze() {
	if v.ended {
		return
	}
	v.ended = true
	if v.scr != nil {
		v.keep(v.snapshot())
	}
}

// keep freezes s, in as little memory as its text needs.
func (v *termView) keep(s screen.Snapshot) {
	lines := make([]string, len(s.Lines))
	for i, l := range s.Lines {
		lines[i] = strings.Clone(l)
	}
	s.Lines = lines
	v.frozen, v.scr, v.pending = &s, nil, nil
}

// heldBytes is the memory the view holds: the output not rendered yet, the
// emulator, the frozen screen.
func (v *termView) heldBytes() int {
	n := cap(v.pending)
	if v.scr != nil {
		n += v.cols * v.rows * cellBytes
	}
	if v.frozen != nil {
		for _, l := range v.frozen.Lines {
			n += len(l) + 16
		}
	}
	return n
}

// styled renders the screen with each character's look.
func (v *termView) styled() screen.Styled {
	v.catchUp()
	return v.scr.Styled()
}
