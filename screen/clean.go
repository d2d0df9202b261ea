package screen

import (
	"bytes"
	"slices"
	"strings"
	"unicode/utf8"
)

// AltScreenNotice is the one line the clean log gets in place of everything a
// program draws in the alternate screen (vim, less, top, ...). The rendered
// screen, not the log, is the place to look at such programs.
const AltScreenNotice = "[full-screen program output omitted]\n"

// Limits. They bound memory and CPU per byte whatever a program prints.
const (
	// LineCap is the number of cells a line may hold before the cleaner
	// commits it and starts a fresh buffer for the rest of the same log line
	// (no newline is inserted). Lines that long are data dumps, not screens,
	// so redraws across the cut no longer matter.
	LineCap = 8192
	// OSCCap is how many payload bytes an OSC sequence may have. A program
	// that starts an OSC and never ends it would otherwise hide all further
	// output; after the cap the cleaner gives up on the sequence and the
	// following bytes are text again.
	OSCCap = 4096
	// StringCap is the same limit for DCS, SOS, PM and APC strings. It is
	// larger because DCS legitimately carries images (sixel) and replies.
	StringCap = 64 << 10

	maxParam  = 9999 // CSI numbers are clamped, so huge counts cost nothing
	maxParams = 16
	maxAway   = 1 << 20
	defCols   = 120
	tabWidth  = 8
)

// Parser states. Bytes inside escape sequences never reach the log.
type pstate uint8

const (
	stGround   pstate = iota
	stEsc             // after ESC
	stEscInter        // ESC + intermediates (charset selects etc.)
	stCSI             // ESC [ ...
	stOSC             // ESC ] ... (BEL | ST)
	stOSCEsc          // ESC inside an OSC: ST or the start of a new sequence
	stStr             // DCS, SOS, PM, APC ... ST
	stStrEsc          // ESC inside such a string
)

const (
	bel = 0x07
	esc = 0x1b
	can = 0x18
	sub = 0x1a
	del = 0x7f
)

// savedCursor is what DECSC (ESC 7) / SCOSC (CSI s) remember. Only a save made
// on the current live line (same gen) is ever restored; see absolute.
type savedCursor struct {
	valid     bool
	gen       uint64
	cur       int
	away      int
	elsewhere bool
}

// Cleaner turns raw terminal output into clean log text, streaming.
//
// Text is committed (handed to the caller) when a line ends or when Flush is
// called; committed text is never taken back. If a line that was partly
// committed is later redrawn, the redrawn line is committed again after a
// newline, so an incremental reader sees each state it could have seen once.
//
// The model is one line of cells with a cursor column, one cell per rune
// (no width tables). What the log gets, in short:
//
//   - Escape sequences, colours, and C0/C1 controls other than the ones below
//     vanish. The output contains no control characters except "\n"; a TAB
//     moves the cursor to the next multiple of 8, so it comes out as spaces.
//   - CR goes to column 0, BS one column left (no erase), LF, VT, FF and CRLF
//     end the line (trailing blanks trimmed) and start a new one at column 0.
//     CSI K, C, D, G, `, a, P, @, X, I, Z edit or move on the current line.
//   - Cursor up (CSI A, CSI F, ESC M) moves onto rows that are already in the
//     log; text written there is dropped until the cursor comes back down
//     (LF, CSI B, CSI E, ...) to the live line, whose cells are kept. So a
//     multi-line progress display appears once, in its first state, and
//     output after it continues normally.
//   - Absolute row moves (CSI H, CSI f, CSI d) end the current line (as LF
//     would, but only if it has content) and continue on a fresh line at the
//     requested column, unless the cursor was saved on this line (ESC 7 /
//     CSI s): then it is the status-line pattern "save, jump, draw, restore",
//     and text is dropped until the restore (or, as a safety valve, an LF).
//   - The alternate screen (CSI ?1049/?1047/?47 h) commits the pending line,
//     emits AltScreenNotice once, and drops everything until it is left.
//   - Invalid UTF-8 becomes U+FFFD, one per invalid byte, as Go decodes it; a
//     character split across Writes comes out intact.
//
// Without Flush calls, the output does not depend on how the input was split
// into Writes.
type Cleaner struct {
	cols int

	// Parser.
	st      pstate
	np      int // index of the CSI parameter being read
	params  [maxParams]int
	marker  byte // CSI private marker (< = > ?), 0 if none
	inter   bool // CSI had intermediates or was malformed: ignore it
	csiAny  bool // a parameter byte was seen (a marker must come first)
	strLen  int  // payload bytes of the current OSC/DCS/... string
	carry   [utf8.UTFMax]byte
	ncarry  int // bytes of an incomplete UTF-8 character held back
	altMode bool
	// appCursor: the program asked for application cursor keys (DECCKM).
	appCursor bool

	// The live line.
	line      []rune // cells; cells past len(line) are blank
	cur       int    // cursor column; may exceed len(line)
	committed int    // cells of line already in the log
	saved     []rune // those cells as committed, to detect a redraw
	away      int    // rows the cursor is above the live line
	elsewhere bool   // cursor at an unknown absolute row (status-line draw)
	gen       uint64 // live-line generation, bumped whenever a line ends
	save      savedCursor
}

// NewCleaner returns a cleaner for a terminal cols wide (0 means 120).
// cols only clamps absolute column moves; lines are not wrapped.
func NewCleaner(cols int) *Cleaner {
	if cols <= 0 {
		cols = defCols
	}
	return &Cleaner{cols: min(cols, LineCap)}
}

// AltScreen reports whether the program is in the alternate screen.
func (c *Cleaner) AltScreen() bool { return c.altMode }

// AppCursor reports whether the program asked for application cursor keys,
// so arrow keys must be sent as ESC O A rather than ESC [ A.
func (c *Cleaner) AppCursor() bool { return c.appCursor }

// Line returns the text of the line being written, up to the cursor if it
// stands past the last visible character ("Name: " keeps its space), and
// whether the cursor is at its end, where a prompt leaves it. It is empty in
// the alternate screen and while the cursor is away from the line.
func (c *Cleaner) Line() (string, bool) {
	if !c.live() {
		return "", false
	}
	t := c.trimmedLen()
	end := max(t, min(c.cur, len(c.line)))
	var b strings.Builder
	for _, r := range c.line[:end] {
		b.WriteRune(r)
	}
	for range c.cur - end {
		b.WriteByte(' ')
	}
	return b.String(), c.cur >= t
}

// Write consumes p and appends the text it commits to dst. The result is
// valid UTF-8.
func (c *Cleaner) Write(dst, p []byte) []byte {
	if c.ncarry > 0 {
		dst, p = c.finishCarry(dst, p)
	}
	for i := 0; i < len(p); {
		b := p[i]
		switch c.st {
		case stGround:
			if c.altMode {
				// Nothing drawn in the alternate screen reaches the log, and
				// only an escape sequence can leave it: skip to the next ESC.
				j := bytes.IndexByte(p[i:], esc)
				if j < 0 {
					return dst
				}
				i += j + 1
				c.st = stEsc
				continue
			}
			if b-0x20 < 0x5f { // printable ASCII: the fast path
				j := i + 1
				for j < len(p) && p[j]-0x20 < 0x5f {
					j++
				}
				if k, ok := c.wholeLine(p, i, j); ok {
					// A complete plain line on a fresh line: no cells needed.
					dst = append(dst, bytes.TrimRight(p[i:j], " ")...)
					dst = append(dst, '\n')
					c.gen++
					i = k
					continue
				}
				dst = c.putASCII(dst, p[i:j])
				i = j
				continue
			}
			if b < 0x80 {
				dst = c.control(dst, b)
				i++
				continue
			}
			if !utf8.FullRune(p[i:]) {
				// Only possible at the end of p: hold the bytes back.
				c.ncarry = copy(c.carry[:], p[i:])
				return dst
			}
			r, n := utf8.DecodeRune(p[i:])
			dst = c.putRune(dst, r)
			i += n
			continue

		case stEsc:
			switch {
			case b == '[':
				c.st = stCSI
				c.np, c.params[0], c.marker, c.inter, c.csiAny = 0, 0, 0, false, false
			case b == ']':
				c.st, c.strLen = stOSC, 0
			case b == 'P' || b == 'X' || b == '^' || b == '_':
				c.st, c.strLen = stStr, 0
			case b >= 0x20 && b <= 0x2f:
				c.st = stEscInter
			case b >= 0x30 && b <= 0x7e:
				c.st = stGround
				dst = c.escFinal(dst, b)
			case b == esc:
				// ESC ESC: the second one starts the sequence.
			default:
				if !c.inSequenceByte(&dst, b) {
					continue // reprocess b as text
				}
			}

		case stEscInter:
			switch {
			case b >= 0x20 && b <= 0x2f:
			case b >= 0x30 && b <= 0x7e:
				c.st = stGround // charset selects and the like: no effect on text
			case b == esc:
				c.st = stEsc
			default:
				if !c.inSequenceByte(&dst, b) {
					continue
				}
			}

		case stCSI:
			// Parameters usually come in bulk (SGR): read them in a tight loop.
			for b-'0' < 10 || b == ';' {
				if b == ';' {
					if c.np < maxParams-1 {
						c.np++
						c.params[c.np] = 0
					}
				} else {
					c.params[c.np] = min(c.params[c.np]*10+int(b-'0'), maxParam)
				}
				c.csiAny = true
				i++
				if i == len(p) {
					return dst
				}
				b = p[i]
			}
			switch {
			case b == ':':
				if c.np < maxParams-1 {
					c.np++
					c.params[c.np] = 0
				}
				c.csiAny = true
			case b >= '<' && b <= '?':
				if c.csiAny {
					c.inter = true // a marker after parameters: malformed
				} else {
					c.marker = b
					c.csiAny = true
				}
			case b >= 0x20 && b <= 0x2f:
				c.inter = true // no sequence we act on has intermediates
			case b >= 0x40 && b <= 0x7e:
				c.st = stGround
				dst = c.csiFinal(dst, b)
			case b == esc:
				c.st = stEsc
			default:
				if !c.inSequenceByte(&dst, b) {
					continue
				}
			}

		case stOSC, stStr:
			// Swallow the payload up to a terminator, in bulk.
			limit := OSCCap
			if c.st == stStr {
				limit = StringCap
			}
			j := i
			for j < len(p) && c.strLen < limit {
				q := p[j]
				if q == esc || q == can || q == sub || (q == bel && c.st == stOSC) {
					break
				}
				j++
				c.strLen++
			}
			i = j
			if j == len(p) {
				return dst
			}
			if c.strLen >= limit && p[j] != esc && p[j] != can && p[j] != sub && !(p[j] == bel && c.st == stOSC) {
				c.st = stGround // give up: the rest is text again
				continue
			}
			switch p[j] {
			case esc:
				if c.st == stOSC {
					c.st = stOSCEsc
				} else {
					c.st = stStrEsc
				}
			default: // BEL ends an OSC; CAN and SUB abort any string
				c.st = stGround
			}

		case stOSCEsc, stStrEsc:
			if b == '\\' {
				c.st = stGround // ST
			} else {
				// Any other byte after ESC ends the string and starts a new
				// sequence, as in xterm.
				c.st = stEsc
				continue
			}
		}
		i++
	}
	return dst
}

// wholeLine reports whether the printable run p[i:j] is a whole line by
// itself: the live line is fresh (empty, cursor at 0, nothing committed) and
// the run is followed by LF or CRLF in p. It returns the index after the line
// end. The result is what the cell path would produce, so splitting the input
// elsewhere gives the same output.
func (c *Cleaner) wholeLine(p []byte, i, j int) (int, bool) {
	if j >= len(p) || j-i > LineCap || len(c.line) != 0 || c.cur != 0 || c.committed != 0 || c.away != 0 || c.elsewhere {
		return 0, false
	}
	if p[j] == '\r' && j+1 < len(p) {
		j++
	}
	if p[j] != '\n' {
		return 0, false
	}
	return j + 1, true
}

// inSequenceByte handles a byte that is neither parameter nor final inside an
// escape sequence. It reports false if the sequence is abandoned and b must be
// processed again as text (bytes >= 0x80).
func (c *Cleaner) inSequenceByte(dst *[]byte, b byte) bool {
	switch {
	case b == can || b == sub:
		c.st = stGround
	case b == del:
	case b < 0x20:
		// C0 controls act in the middle of a sequence (as on a VT100).
		*dst = c.control(*dst, b)
	default:
		c.st = stGround
		return false
	}
	return true
}

// control executes a C0 control (or DEL) in ground state or inside a sequence.
func (c *Cleaner) control(dst []byte, b byte) []byte {
	switch b {
	case '\n', 0x0b, 0x0c:
		return c.lineFeed(dst)
	case '\r':
		c.cur = 0
	case '\b':
		if c.cur > 0 {
			c.cur--
		}
	case '\t':
		c.cur = min((c.cur/tabWidth+1)*tabWidth, LineCap-1)
	case esc:
		c.st = stEsc
	}
	// BEL, NUL, SO, SI, DEL and the rest are dropped.
	return dst
}

// live reports whether the cursor is on the live line, so that text and edits
// land in its cells.
func (c *Cleaner) live() bool { return c.away == 0 && !c.elsewhere && !c.altMode }

func (c *Cleaner) putRune(dst []byte, r rune) []byte {
	if r >= 0x80 && r < 0xa0 {
		return dst // C1 controls, UTF-8 encoded: never text
	}
	if !c.live() {
		c.cur = min(c.cur+1, LineCap-1)
		return dst
	}
	if c.cur >= LineCap {
		dst = c.overflow(dst)
	}
	c.pad()
	if c.cur < len(c.line) {
		c.line[c.cur] = r
	} else {
		c.line = append(c.line, r)
	}
	c.cur++
	return dst
}

// putASCII writes a run of printable ASCII bytes at the cursor.
func (c *Cleaner) putASCII(dst []byte, run []byte) []byte {
	if !c.live() {
		c.cur = min(c.cur+len(run), LineCap-1)
		return dst
	}
	for len(run) > 0 {
		if c.cur >= LineCap {
			dst = c.overflow(dst)
		}
		c.pad()
		if c.cur < len(c.line) { // overwrite (a redraw after CR)
			n := min(len(run), len(c.line)-c.cur)
			cells := c.line[c.cur : c.cur+n]
			for k, b := range run[:n] {
				cells[k] = rune(b)
			}
			c.cur += n
			run = run[n:]
			continue
		}
		n := min(len(run), LineCap-c.cur)
		old := len(c.line)
		c.line = slices.Grow(c.line, n)[:old+n]
		cells := c.line[old:]
		for k, b := range run[:n] {
			cells[k] = rune(b)
		}
		c.cur += n
		run = run[n:]
	}
	return dst
}

// pad fills blank cells up to the cursor, which may have moved past the text.
func (c *Cleaner) pad() {
	for len(c.line) < c.cur {
		c.line = append(c.line, ' ')
	}
}

// finishCarry completes (or rejects) the UTF-8 character held back at the end
// of the previous Write, exactly as if the two Writes had been one.
func (c *Cleaner) finishCarry(dst, p []byte) ([]byte, []byte) {
	for c.ncarry > 0 {
		var tmp [2 * utf8.UTFMax]byte
		n := copy(tmp[:], c.carry[:c.ncarry])
		m := copy(tmp[n:], p)
		buf := tmp[:n+m]
		if !utf8.FullRune(buf) { // still incomplete, so p was all used
			c.ncarry = copy(c.carry[:], buf)
			return dst, nil
		}
		r, size := utf8.DecodeRune(buf)
		if size > n {
			c.ncarry = 0
			return c.putRune(dst, r), p[size-n:]
		}
		// Invalid: the first held byte is an error; look at the rest again.
		dst = c.putRune(dst, utf8.RuneError)
		copy(c.carry[:], c.carry[1:c.ncarry])
		c.ncarry--
	}
	return dst, p
}

// param returns CSI parameter i, or def when it is absent or zero.
func (c *Cleaner) param(i, def int) int {
	if i > c.np || c.params[i] == 0 {
		return def
	}
	return c.params[i]
}

func (c *Cleaner) col(n int) int { return max(0, min(n-1, c.cols-1)) }

func (c *Cleaner) escFinal(dst []byte, b byte) []byte {
	if b == 'c' { // RIS: full reset, which also leaves the alternate screen
		if c.altMode {
			c.leaveAlt()
		} else {
			dst = c.endLine(dst, false)
		}
		c.save.valid = false
		return dst
	}
	if c.altMode {
		return dst
	}
	switch b {
	case '7':
		c.saveCursor()
	case '8':
		c.restoreCursor()
	case 'M': // RI
		c.up(1)
	case 'D', 'E': // IND, NEL
		dst = c.lineFeed(dst)
	}
	// ESC =, ESC >, ESC 6, ESC 9, ...: keypad and other modes, no text effect.
	return dst
}

func (c *Cleaner) csiFinal(dst []byte, b byte) []byte {
	if c.inter {
		return dst
	}
	if c.marker != 0 {
		if c.marker == '?' && (b == 'h' || b == 'l') {
			for i := 0; i <= c.np; i++ {
				switch c.params[i] {
				case 1049, 1047, 47:
					if b == 'h' {
						dst = c.enterAlt(dst)
					} else {
						c.leaveAlt()
					}
				case 1: // DECCKM: arrow keys send ESC O A instead of ESC [ A
					c.appCursor = b == 'h'
				}
			}
		}
		return dst
	}
	if c.altMode {
		return dst
	}
	n := c.param(0, 1)
	switch b {
	case 'A': // CUU
		c.up(n)
	case 'F': // CPL
		c.up(n)
		c.cur = 0
	case 'B', 'e': // CUD, VPR
		c.down(n)
	case 'E': // CNL
		c.down(n)
		c.cur = 0
	case 'C', 'a': // CUF, HPR
		c.cur = min(c.cur+n, LineCap-1)
	case 'D': // CUB
		c.cur = max(c.cur-n, 0)
	case 'G', '`': // CHA, HPA
		c.cur = c.col(n)
	case 'I': // CHT
		c.cur = min((c.cur/tabWidth+n)*tabWidth, LineCap-1)
	case 'Z': // CBT
		if c.cur > 0 {
			c.cur = max(0, ((c.cur-1)/tabWidth-(n-1))*tabWidth)
		}
	case 'H', 'f': // CUP, HVP
		dst = c.absolute(dst, c.col(c.param(1, 1)))
	case 'd': // VPA
		dst = c.absolute(dst, c.cur)
	case 's':
		c.saveCursor()
	case 'u':
		c.restoreCursor()
	case 'K':
		if c.live() {
			c.eraseInLine(c.param(0, 0))
		}
	case 'X': // ECH
		if c.live() && c.cur < len(c.line) {
			for i := c.cur; i < min(c.cur+n, len(c.line)); i++ {
				c.line[i] = ' '
			}
		}
	case 'P': // DCH
		if c.live() && c.cur < len(c.line) {
			k := min(n, len(c.line)-c.cur)
			c.line = slices.Delete(c.line, c.cur, c.cur+k)
		}
	case '@': // ICH
		if c.live() && c.cur < len(c.line) {
			// Shift right in place; what passes the cap falls off, as at a
			// right margin.
			k := min(n, LineCap-c.cur)
			old := len(c.line)
			c.line = slices.Grow(c.line, k)[:min(old+k, LineCap)]
			copy(c.line[c.cur+k:], c.line[c.cur:old])
			for i := c.cur; i < c.cur+k; i++ {
				c.line[i] = ' '
			}
		}
	}
	// SGR (m), ED (J), scrolling, modes, reports and the rest: no effect.
	return dst
}

func (c *Cleaner) eraseInLine(mode int) {
	switch mode {
	case 0: // cursor to end
		if c.cur < len(c.line) {
			c.line = c.line[:c.cur]
		}
	case 1: // start to cursor, inclusive
		for i := 0; i < min(c.cur+1, len(c.line)); i++ {
			c.line[i] = ' '
		}
	case 2:
		c.line = c.line[:0]
	}
}

func (c *Cleaner) up(n int) {
	if !c.elsewhere {
		c.away = min(c.away+n, maxAway)
	}
}

func (c *Cleaner) down(n int) {
	if !c.elsewhere {
		c.away = max(c.away-n, 0)
	}
}

func (c *Cleaner) saveCursor() {
	c.save = savedCursor{valid: true, gen: c.gen, cur: c.cur, away: c.away, elsewhere: c.elsewhere}
}

// restoreCursor returns to a position saved on the current live line. A save
// from an earlier line is ignored: its row is already in the log, and
// following the cursor there could only lose text.
func (c *Cleaner) restoreCursor() {
	if c.save.valid && c.save.gen == c.gen {
		c.cur, c.away, c.elsewhere = c.save.cur, c.save.away, c.save.elsewhere
	}
}

// absolute handles a move to an absolute row. Rows are not modelled, so the
// cleaner cannot know where that is; see the Cleaner doc for the two cases.
func (c *Cleaner) absolute(dst []byte, col int) []byte {
	if c.save.valid && c.save.gen == c.gen {
		c.elsewhere = true
	} else {
		dst = c.endLine(dst, false)
	}
	c.cur = col
	return dst
}

func (c *Cleaner) lineFeed(dst []byte) []byte {
	switch {
	case c.altMode:
	case c.elsewhere:
		// An LF while drawing at an unknown row: stop guessing, end the live
		// line and log what follows as new lines.
		dst = c.endLine(dst, false)
	case c.away > 0:
		c.away--
		c.cur = 0
	default:
		dst = c.endLine(dst, true)
	}
	return dst
}

// endLine commits the live line and starts a new one at column 0. Unless
// force (a real LF), a line with nothing visible and nothing committed leaves
// no trace.
func (c *Cleaner) endLine(dst []byte, force bool) []byte {
	t := c.trimmedLen()
	if force || t > 0 || c.committed > 0 {
		dst = c.commitUpTo(dst, t)
		dst = append(dst, '\n')
	}
	c.resetLine()
	return dst
}

func (c *Cleaner) resetLine() {
	c.line = c.line[:0]
	c.saved = c.saved[:0]
	c.committed, c.cur, c.away, c.elsewhere = 0, 0, 0, false
	c.gen++
}

// overflow commits a line that reached LineCap and empties the buffer; the log
// line goes on without a newline.
func (c *Cleaner) overflow(dst []byte) []byte {
	dst = c.commitUpTo(dst, len(c.line))
	c.resetLine()
	return dst
}

func (c *Cleaner) trimmedLen() int {
	n := len(c.line)
	for n > 0 && c.line[n-1] == ' ' {
		n--
	}
	return n
}

// commitUpTo makes the log hold cells [0, end) of the live line. If cells
// already committed have changed since, the log cannot be corrected, so the
// whole line is committed again after a newline; an erased line (end == 0)
// waits for new content instead of logging an empty line.
func (c *Cleaner) commitUpTo(dst []byte, end int) []byte {
	if c.committed > 0 && c.redrawn() {
		if end == 0 {
			return dst
		}
		dst = append(dst, '\n')
		dst = appendCells(dst, c.line[:end])
		c.saved = append(c.saved[:0], c.line[:end]...)
		c.committed = end
		return dst
	}
	if end > c.committed {
		dst = appendCells(dst, c.line[c.committed:end])
		c.saved = append(c.saved, c.line[c.committed:end]...)
		c.committed = end
	}
	return dst
}

// redrawn reports whether committed cells differ from what was committed.
// Comparing at commit time (rather than flagging every edit) means that a
// redraw with identical content is not a change.
func (c *Cleaner) redrawn() bool {
	for i, r := range c.saved {
		cell := rune(' ')
		if i < len(c.line) {
			cell = c.line[i]
		}
		if cell != r {
			return true
		}
	}
	return false
}

func appendCells(dst []byte, cells []rune) []byte {
	// ASCII cells are stored into the grown slice directly; from the first
	// other rune on, encode one by one.
	n := len(dst)
	dst = slices.Grow(dst, len(cells))[:n+len(cells)]
	out := dst[n:]
	for k, r := range cells {
		if r >= utf8.RuneSelf {
			dst = dst[:n+k]
			for _, r := range cells[k:] {
				dst = utf8.AppendRune(dst, r)
			}
			return dst
		}
		out[k] = byte(r)
	}
	return dst
}

func (c *Cleaner) enterAlt(dst []byte) []byte {
	if c.altMode {
		return dst
	}
	dst = c.endLine(dst, false)
	dst = append(dst, AltScreenNotice...)
	c.altMode = true
	c.save.valid = false
	return dst
}

func (c *Cleaner) leaveAlt() {
	if !c.altMode {
		return
	}
	c.altMode = false
	c.resetLine()
	c.save.valid = false
}

// Flush appends the pending, not yet committed part of the current line (as
// far as the cursor or the last non-blank cell reaches) to dst, so a prompt
// without a trailing newline becomes visible. A line with nothing visible is
// left alone. Text written later on the same line continues the committed part;
// if committed cells are changed instead, the next commit starts a new log
// line (see Cleaner).
func (c *Cleaner) Flush(dst []byte) []byte {
	t := c.trimmedLen()
	if c.altMode || t == 0 {
		return dst
	}
	// Blank cells count only up to the cursor: "Name: " keeps its space, but
	// the blanks zsh prints after its PROMPT_SP mark do not become text.
	end := t
	if c.live() && c.cur > t {
		c.pad()
		end = c.cur
	}
	return c.commitUpTo(dst, end)
}

// Close commits everything still pending, including a partial UTF-8 sequence
// (as U+FFFD), and appends it to dst. Call it at end of stream.
//
// The pending line is committed with trailing blanks trimmed and without a
// newline. An unfinished escape sequence is dropped. Afterwards the cleaner
// is as new.
func (c *Cleaner) Close(dst []byte) []byte {
	for c.ncarry > 0 {
		// Each held byte is an error, as Go decodes a truncated sequence.
		c.ncarry--
		dst = c.putRune(dst, utf8.RuneError)
	}
	if !c.altMode {
		dst = c.commitUpTo(dst, c.trimmedLen())
	}
	*c = Cleaner{cols: c.cols, line: c.line[:0], saved: c.saved[:0]}
	return dst
}
