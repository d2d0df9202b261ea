package session

import "github.com/yieldshell/yieldshell/internal/screen"

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
}

func newTermView(cols, rows int) *termView {
	return &termView{cols: cols, rows: rows}
}

func (v *termView) add(b []byte) {
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
	v.catchUp()
	return v.scr.Snapshot()
}

// resize applies a new size after the output written at the old one.
func (v *termView) resize(cols, rows int) {
	v.catchUp()
	v.cols, v.rows = cols, rows
	v.scr.Resize(cols, rows)
}
