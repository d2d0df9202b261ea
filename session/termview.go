package session

import "github.com/yieldshell/yieldshell/screen"

// pendingCap bounds the terminal output kept for a screen nobody has asked
// for yet.
const pendingCap = 128 << 10

// termView is the rendered screen of a PTY-mode process, rendered lazily:
// the emulator is slow (about 20 MB/s) next to the terminal, so output only
// piles up here until someone asks for the screen. Past pendingCap the
// oldest half is dropped and the next render starts from a blank emulator:
// full-screen programs redraw far more often than that, so the screen
// still comes out as it is now.
//
// Not safe for concurrent use; the Process locks around it.
type termView struct {
	scr        *screen.Screen
	cols, rows int
	pending    []byte
	lost       bool
}

func newTermView(cols, rows int) *termView {
	return &termView{scr: screen.New(cols, rows), cols: cols, rows: rows}
}

func (v *termView) add(b []byte) {
	v.pending = append(v.pending, b...)
	if len(v.pending) > pendingCap {
		keep := v.pending[len(v.pending)-pendingCap/2:]
		v.pending = append(v.pending[:0], keep...)
		v.lost = true
	}
}

// catchUp feeds what is pending to the emulator.
func (v *termView) catchUp() {
	if v.lost {
		v.scr = screen.New(v.cols, v.rows)
		v.lost = false
	}
	if len(v.pending) > 0 {
		_, _ = v.scr.Write(v.pending) // Screen.Write never fails
		v.pending = v.pending[:0]
	}
}

func (v *termView) snapshot() screen.Snapshot {
	v.catchUp()
	return v.scr.Snapshot()
}

// resize applies a new size after the output written at the old one.
func (v *termView) resize(cols, rows int) {
	v.catchUp()
	v.cols, v.rows = cols, rows
	v.scr.Resize(cols, rows)
}
