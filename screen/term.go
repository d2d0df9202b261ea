package screen

import (
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/hinshun/vt10x"
	"github.com/mattn/go-runewidth"
)

// Screen limits. The emulator allocates cols*rows cells twice (main and
// alternate screen), so the size is bounded whatever a caller asks for.
const (
	MaxCols = 1000
	MaxRows = 500

	maxCSIBytes = 64  // a longer CSI is dropped, not passed to vt10x
	maxTabCount = 256 // CHT/CBT counts: vt10x loops per tab stop

	// widePlaceholder fills the right half of a wide character in vt10x,
	// which knows no widths. It is a noncharacter, so no program prints it.
	widePlaceholder rune = 0xFDD0
)

// Screen is the rendered screen of a terminal, for full-screen programs and
// for showing what a person would see right now. It wraps vt10x and guards
// it against its known faults (reference/go-deps.md §2):
//
//   - a UTF-8 character split across Writes is held back until complete
//     (vt10x drops it otherwise);
//   - wide characters are followed by a placeholder cell, so vt10x (which
//     knows no widths) advances two columns, and the placeholder is left
//     out of Snapshot; combining marks are dropped (vt10x would give them a
//     cell); REP is expanded, as vt10x does not know it;
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
	s := &Screen{term: vt10x.New(vt10x.WithSize(cols, rows)), cols: cols, rows: rows}
	s.san.width = runewidth.Condition{StrictEmojiNeutral: true}
	s.san.cols, s.san.cells = cols, cols*rows
	return s
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
	b := s.san.feed(s.buf[:0], p)
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
	s.san.cols, s.san.cells = cols, cols*rows
	s.guard(func() { s.term.Resize(cols, rows) })
}

// shown is what cell (x, y) of t, holding r, shows, given what the cell
// before it on its row showed (prev): nothing (false) for the right half
// of a wide character, a space for a half whose other half was
// overwritten. Called with t locked.
func (s *Screen) shown(t vt10x.Terminal, x, y, cols int, r, prev rune) (rune, bool) {
	switch {
	case r == 0:
		return ' ', true
	case r == widePlaceholder && s.san.width.RuneWidth(prev) == 2:
		return r, false // the right half of the character before
	case r == widePlaceholder:
		return ' ', true // its wide character was overwritten
	case s.san.width.RuneWidth(r) == 2 && (x+1 >= cols || t.Cell(x+1, y).Char != widePlaceholder):
		return ' ', true // its right half was overwritten
	}
	return r, true
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
			prev := rune(0)
			for x := range cols {
				r, shown := s.shown(t, x, y, cols, t.Cell(x, y).Char, prev)
				prev = r
				if shown {
					sb.WriteRune(r)
				}
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
	carry  []byte // an incomplete UTF-8 character at the end of the last feed
	last   rune   // the last character printed, for REP
	alt    bool   // in the alternate screen, as far as vt10x was told
	insert bool   // insert mode (IRM): each character is preceded by ICH
	cols   int    // screen width and size in cells, to bound REP
	cells  int
	width  runewidth.Condition
	st     pstate
	csi    []byte // parameter and intermediate bytes of the pending CSI
	n      int    // payload bytes of the current string
	osc    bool   // the current string is an OSC (BEL ends it)
}

// feed appends the sanitized form of p to dst. Like the Cleaner's
// tokenizer it is a state machine, one method per state, each returning
// the index of the next byte to read (the same one if the byte must be
// read again in the new state).
func (z *sanitizer) feed(dst, p []byte) []byte {
	if len(z.carry) > 0 {
		p = append(z.carry, p...)
		z.carry = nil
	}
	for i := 0; i < len(p); {
		switch z.st {
		case stGround:
			dst, i = z.text(dst, p, i)
		case stEsc:
			dst, i = z.escape(dst, p[i]), i+1
		case stEscInter:
			dst, i = z.escInter(dst, p[i]), i+1
		case stCSI:
			dst, i = z.csiByte(dst, p, i)
		case stStr:
			dst, i = z.stringByte(dst, p, i)
		case stStrEsc:
			dst, i = z.stringEsc(dst, p, i)
		}
	}
	return dst
}

// text passes text through up to the next ESC, which it consumes, holding
// back an incomplete UTF-8 character at the end of p.
func (z *sanitizer) text(dst, p []byte, i int) ([]byte, int) {
	for i < len(p) && p[i] != esc {
		if p[i] < utf8.RuneSelf {
			dst = z.ascii(dst, p[i])
			i++
			continue
		}
		if !utf8.FullRune(p[i:]) {
			z.carry = append([]byte(nil), p[i:]...)
			return dst, len(p)
		}
		r, n := utf8.DecodeRune(p[i:])
		dst = z.char(dst, r, p[i:i+n])
		i += n
	}
	if i < len(p) {
		z.st = stEsc
		i++
	}
	return dst, i
}

// ascii passes an ASCII byte through, preceded by ICH in insert mode.
func (z *sanitizer) ascii(dst []byte, b byte) []byte {
	if b >= 0x20 && b < del {
		z.last = rune(b)
		if z.insert {
			dst = append(dst, "\x1b[@"...)
		}
	} else {
		z.last = 0
	}
	return append(dst, b)
}

// char passes the character r, encoded as enc, through: a wide one
// followed by the placeholder, a combining mark not at all.
func (z *sanitizer) char(dst []byte, r rune, enc []byte) []byte {
	switch z.width.RuneWidth(r) {
	case 0:
		if r == utf8.RuneError || r >= 0x80 && r < 0xa0 {
			dst = append(dst, enc...) // vt10x's own handling
		}
	case 2:
		if z.insert {
			dst = append(dst, "\x1b[2@"...)
		}
		dst = append(dst, enc...)
		dst = utf8.AppendRune(dst, widePlaceholder)
		z.last = r
	default:
		if z.insert {
			dst = append(dst, "\x1b[@"...)
		}
		dst = append(dst, enc...)
		z.last = r
	}
	return dst
}

// escape reads the byte after ESC.
func (z *sanitizer) escape(dst []byte, b byte) []byte {
	switch {
	case b == '[':
		z.st, z.csi = stCSI, z.csi[:0]
	case b == ']' || b == 'P' || b == 'X' || b == '^' || b == '_' || b == 'k':
		z.last = 0
		// vt10x treats ESC X as plain text's ESC X; make SOS a PM,
		// which it swallows like the others.
		if b == 'X' {
			b = '^'
		}
		dst = append(dst, esc, b)
		z.st, z.n, z.osc = stStr, 0, b == ']'
	case b == esc:
		dst = append(dst, esc)
	case b >= 0x20 && b <= 0x2f: // ESC ( B and the like
		dst = append(dst, esc, b)
		z.st = stEscInter
	default:
		if b == 'c' { // RIS: vt10x is back on the normal screen
			z.alt, z.insert = false, false
		}
		z.last = 0
		dst = append(dst, esc, b)
		z.st = stGround
	}
	return dst
}

// escInter reads a byte after ESC and an intermediate.
func (z *sanitizer) escInter(dst []byte, b byte) []byte {
	dst = append(dst, b)
	if b >= 0x30 || b == esc || b == can || b == sub {
		z.st = stGround
		if b == esc {
			z.st = stEsc
			dst = dst[:len(dst)-1]
		}
	}
	z.last = 0
	return dst
}

// csiByte reads a byte of a CSI sequence, which is held until its final
// byte.
func (z *sanitizer) csiByte(dst, p []byte, i int) ([]byte, int) {
	switch b := p[i]; {
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
		return dst, i
	}
	return dst, i + 1
}

// stringByte passes a byte of an OSC, DCS, SOS, PM or APC string through.
func (z *sanitizer) stringByte(dst, p []byte, i int) ([]byte, int) {
	switch b := p[i]; {
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
		return dst, i
	default:
		dst = append(dst, b)
		z.n++
	}
	return dst, i + 1
}

// stringEsc reads the byte after an ESC inside a string. The ESC is
// already out, so vt10x waits for ST. Give it one; if b is not that ST, the
// ESC began a new sequence (as in xterm), which b continues.
func (z *sanitizer) stringEsc(dst, p []byte, i int) ([]byte, int) {
	dst = append(dst, '\\')
	if p[i] == '\\' {
		z.st = stGround
		return dst, i + 1
	}
	z.st = stEsc
	return dst, i
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
	if f != 'b' {
		z.last = 0 // REP repeats only a character right before it, as in tmux
	}
	if !priv && (f == 'h' || f == 'l') && string(params) == "4" {
		z.insert = f == 'h' // IRM: vt10x does not know it; put expands it
		return dst
	}
	if priv && (f == 'h' || f == 'l') {
		switch string(params) {
		case "1049", "1047", "47":
			// vt10x clears the screen when told to leave an alternate
			// screen it is not in (tput rmcup at exit): pass only changes.
			if z.alt == (f == 'h') {
				return dst
			}
			z.alt = f == 'h'
		}
	}
	if f == 'b' && !priv { // REP: vt10x does not know it
		return z.repeat(dst, params)
	}
	return appendCSI(dst, priv, params, f)
}

// repeat expands REP with parameter bytes params into the characters.
func (z *sanitizer) repeat(dst, params []byte) []byte {
	n := 1
	if v, err := strconv.Atoi(string(params)); err == nil && v > 0 {
		n = min(v, maxParam)
	} else if len(params) > 0 {
		return dst
	}
	if z.last == 0 {
		return dst
	}
	if n > z.cells {
		// Past a screenful, more repetitions of one character only
		// scroll it through: keep the cursor's column, not the bytes.
		n = z.cells + (n-z.cells)%max(z.cols, 1)
	}
	for range n {
		dst = utf8.AppendRune(dst, z.last)
		if z.width.RuneWidth(z.last) == 2 {
			dst = utf8.AppendRune(dst, widePlaceholder)
		}
	}
	return dst
}

// appendCSI appends CSI [?] params f with every number clamped (tab counts
// harder, as vt10x loops per tab stop), or nothing if params holds more
// than numbers and semicolons.
func appendCSI(dst []byte, priv bool, params []byte, f byte) []byte {
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
		} else if f == 'm' && !priv {
			// An empty SGR parameter is 0 (fzf writes ESC[;1;38;5;161m);
			// vt10x would drop the whole sequence.
			out = append(out, '0')
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
	if f == 'm' && out[len(out)-1] == ';' {
		out = append(out, '0')
	}
	return append(out, f)
}
