package screen

import (
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/hinshun/vt10x"
)

// Screen limits. The emulator allocates cols*rows cells twice (main and
// alternate screen), so the size is bounded whatever a caller asks for.
const (
	MaxCols = 1000
	MaxRows = 500

	maxCSIBytes = 64  // a longer CSI is dropped, not passed to vt10x
	maxTabCount = 256 // CHT/CBT counts: vt10x loops per tab stop
)

// Screen is the rendered screen of a terminal, for full-screen programs and
// for showing what a person would see right now. It wraps vt10x and guards
// it against its known faults (reference/go-deps.md §2):
//
//   - a UTF-8 character split across Writes is held back until complete
//     (vt10x drops it otherwise);
//   - CSI sequences that crash or stall vt10x (negative counts, huge counts,
//     unknown private markers, intermediates) are clamped or dropped, and
//     unterminated OSC/DCS/APC/PM strings are cut after OSCCap bytes, so they
//     cannot swallow the rest of the output;
//   - a panic inside vt10x is recovered: the emulator is replaced by a blank
//     one and the screen reports itself Degraded.
//
// Screen is safe for concurrent use; it has its own mutex, and vt10x is only
// touched under it. Query replies (cursor position reports and the like) are
// discarded: the screen is a view, not the terminal the program talks to.
type Screen struct {
	mu     sync.Mutex
	term   vt10x.Terminal
	cols   int
	rows   int
	san    sanitizer
	carry  [utf8.UTFMax]byte
	ncarry int
	buf    []byte // sanitized bytes for one Write, reused
	panics int
}

// Snapshot is the state of a Screen at one moment.
type Snapshot struct {
	Lines         []string // one per row, trailing blanks trimmed
	CursorX       int      // 0-based column
	CursorY       int      // 0-based row
	Cols, Rows    int
	AltScreen     bool // the program is in the alternate screen
	CursorVisible bool
	// Degraded is set once the emulator has panicked and been reset: what
	// was on the screen before that is gone.
	Degraded bool
}

// New returns a blank screen cols wide and rows high (clamped to 1..MaxCols
// and 1..MaxRows; 0 means 80x24).
func New(cols, rows int) *Screen {
	cols, rows = clampSize(cols, rows)
	return &Screen{term: vt10x.New(vt10x.WithSize(cols, rows)), cols: cols, rows: rows}
}

func clampSize(cols, rows int) (int, int) {
	if cols <= 0 {
		cols = 80
	}
	if rows <= 0 {
		rows = 24
	}
	return min(cols, MaxCols), min(rows, MaxRows)
}

// Write renders p. It always consumes all of p and never fails, so it can be
// used as an io.Writer.
func (s *Screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := append(s.buf[:0], s.carry[:s.ncarry]...)
	b = s.san.feed(b, p)
	// Hold back an incomplete UTF-8 character at the end (go-deps §2.4).
	s.ncarry = 0
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax+1; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				s.ncarry = copy(s.carry[:], b[i:])
				b = b[:i]
			}
			break
		}
	}
	s.buf = b
	if len(b) > 0 {
		s.guard(func() { s.term.Write(b) })
	}
	return len(p), nil
}

// guard runs f, which touches the emulator, and recovers from a panic in it
// by replacing the emulator with a blank one. vt10x releases its own lock in
// a defer, so the new emulator is not needed for that; it is needed because
// the old one's state is unknown.
func (s *Screen) guard(f func()) {
	defer func() {
		if r := recover(); r != nil {
			s.panics++
			s.term = vt10x.New(vt10x.WithSize(s.cols, s.rows))
		}
	}()
	f()
}

// Resize changes the screen size (clamped like New). Keep it in step with the
// PTY's window size.
func (s *Screen) Resize(cols, rows int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cols, rows = clampSize(cols, rows)
	if cols == s.cols && rows == s.rows {
		return
	}
	s.cols, s.rows = cols, rows
	s.guard(func() { s.term.Resize(cols, rows) })
}

// Snapshot returns what the screen shows now.
func (s *Screen) Snapshot() Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	var snap Snapshot
	s.guard(func() {
		t := s.term
		t.Lock()
		defer t.Unlock()
		cols, rows := t.Size()
		snap.Cols, snap.Rows = cols, rows
		snap.Lines = make([]string, rows)
		var sb strings.Builder
		for y := range rows {
			sb.Reset()
			for x := range cols {
				r := t.Cell(x, y).Char
				if r == 0 {
					r = ' '
				}
				sb.WriteRune(r)
			}
			snap.Lines[y] = strings.TrimRight(sb.String(), " ")
		}
		cur := t.Cursor()
		snap.CursorX, snap.CursorY = cur.X, cur.Y
		snap.AltScreen = t.Mode()&vt10x.ModeAltScreen != 0
		snap.CursorVisible = t.CursorVisible()
	})
	snap.Degraded = s.panics > 0
	if snap.Lines == nil { // the snapshot itself panicked
		snap.Cols, snap.Rows = s.cols, s.rows
		snap.Lines = make([]string, s.rows)
	}
	return snap
}

// sanitizer rewrites the byte stream for vt10x. It keeps state across
// Writes: an incomplete CSI is held until its final byte.
type sanitizer struct {
	st  pstate
	csi []byte // parameter and intermediate bytes of the pending CSI
	n   int    // payload bytes of the current string
	osc bool   // the current string is an OSC (BEL ends it)
}

func (z *sanitizer) feed(dst, p []byte) []byte {
	for i := 0; i < len(p); i++ {
		b := p[i]
		switch z.st {
		case stGround:
			j := i
			for j < len(p) && p[j] != esc {
				j++
			}
			dst = append(dst, p[i:j]...)
			i = j
			if j < len(p) {
				z.st = stEsc
			}
		case stEsc:
			switch {
			case b == '[':
				z.st, z.csi = stCSI, z.csi[:0]
			case b == ']' || b == 'P' || b == 'X' || b == '^' || b == '_' || b == 'k':
				// vt10x treats ESC X as plain text's ESC X; make SOS a PM,
				// which it swallows like the others.
				if b == 'X' {
					b = '^'
				}
				dst = append(dst, esc, b)
				z.st, z.n, z.osc = stStr, 0, b == ']'
			case b == esc:
				dst = append(dst, esc)
			default:
				dst = append(dst, esc, b)
				z.st = stGround
			}
		case stCSI:
			switch {
			case b >= 0x20 && b <= 0x3f:
				z.csi = append(z.csi, b)
			case b >= 0x40 && b <= 0x7e:
				dst = z.emitCSI(dst, b)
				z.st = stGround
			case b == esc:
				z.st = stEsc // drop the broken CSI
			case b < 0x20 || b == del:
				dst = append(dst, b) // vt10x executes C0 inside a CSI too
			default:
				z.st = stGround // drop it, and b is text again
				i--
			}
		case stStrEsc:
			// The ESC is already out, so vt10x waits for ST. Give it one;
			// if b is not that ST, the ESC began a new sequence (as in
			// xterm), which b continues.
			dst = append(dst, '\\')
			if b == '\\' {
				z.st = stGround
			} else {
				z.st = stEsc
				i--
			}
		case stStr:
			switch {
			case b == esc:
				dst = append(dst, esc)
				z.st = stStrEsc
			case b == bel:
				dst = append(dst, bel)
				z.st = stGround
			case z.n >= OSCCap:
				// Cut an endless string, as the Cleaner does.
				dst = append(dst, esc, '\\')
				z.st = stGround
				i--
			default:
				dst = append(dst, b)
				z.n++
			}
		}
	}
	return dst
}

// emitCSI appends the pending CSI with final byte f, clamped, or nothing if
// vt10x cannot be trusted with it.
func (z *sanitizer) emitCSI(dst []byte, f byte) []byte {
	params := z.csi
	if len(params) > maxCSIBytes {
		return dst
	}
	priv := false
	if len(params) > 0 && params[0] >= '<' && params[0] <= '?' {
		if params[0] != '?' {
			return dst // > = < markers: vt10x would misread them
		}
		priv = true
		params = params[1:]
	}
	limit := maxParam
	if f == 'I' || f == 'Z' {
		limit = maxTabCount
	}
	out := append(dst, esc, '[')
	if priv {
		out = append(out, '?')
	}
	for len(params) > 0 {
		k := 0
		v, digits := 0, false
		for k < len(params) && params[k] >= '0' && params[k] <= '9' {
			v = min(v*10+int(params[k]-'0'), limit)
			digits = true
			k++
		}
		if digits {
			out = strconv.AppendInt(out, int64(v), 10)
		}
		if k == len(params) {
			break
		}
		if params[k] != ';' {
			// Intermediates, '-', ':' or a stray marker: vt10x would
			// misparse or panic (ESC[-1@), so drop the sequence.
			return dst
		}
		out = append(out, ';')
		params = params[k+1:]
	}
	return append(out, f)
}
