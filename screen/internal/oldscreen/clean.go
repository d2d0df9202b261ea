package oldscreen

import (
	"slices"
	"unicode/utf8"
)

// AltScreenNotice is the one line the clean log gets in place of everything a
// program draws in the alternate screen (vim, less, top, ...). The rendered
// screen, not the log, is the place to look at such programs.
const AltScreenNotice = "[full-screen program output omitted]\n"

// Limits. They bound memory and CPU per byte whatever a program prints.
const (
	// OSCCap is how many payload bytes an OSC sequence may have. A program
	// that starts an OSC and never ends it would otherwise hide all further
	// output; after the cap the cleaner gives up on the sequence and the
	// following bytes are text again.
	OSCCap = 4096
	// StringCap is the same limit for DCS, SOS, PM and APC strings. It is
	// larger because DCS legitimately carries images (sixel) and replies.
	StringCap = 64 << 10
	// ReplyCap bounds the replies a Cleaner holds for its owner to take
	// (TakeReplies); replies past it are dropped and counted.
	ReplyCap = 4096

	maxParam  = 9999 // CSI numbers are clamped, so huge counts cost nothing
	maxParams = 16
	oscKeep   = 16 // OSC payload bytes kept to recognise a colour query
	defCols   = 120
	defRows   = 40
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

// Cleaner turns raw terminal output into clean log text, streaming. It is a
// terminal: it keeps a row model of the normal screen, as wide and as tall as
// the terminal, and commits rows to the log as they become final.
//
// # When a row is committed
//
// Text is committed (appended to the dst a method returns) when a row
// leaves the screen at the top (scrolling, or a clear of the whole screen,
// which pushes what was on it up, as tmux and xterm do), and at the calls of
// the owner: Commit (or its older name Flush) when the program waits for
// input or a read must show everything, Close when the stream ends. With
// NewCleaner the cleaner is eager, as the log was before the row model: a
// row is also committed when a line feed leaves it. NewTerminal makes a
// deferred one, where rows still on the screen stay open (see Pending) until
// they scroll off or the owner commits them.
//
// Committed text is never taken back, so sequence positions stay stable. If
// a row already committed is drawn again while it is still on the screen
// (a progress display moving the cursor up, a redraw after a Commit), the
// next commit that reaches it logs it again, after a line break (and after
// finishing the line the log ends in): the log shows each state a reader
// could have seen, never a stale one. A redraw with identical content is
// not a change. Between commits, a read of a running program shows the
// committed log followed by Pending, which is exactly what Commit would
// add at that moment.
//
// # The model
//
//   - Escape sequences, colours and C0/C1 controls other than the ones below
//     vanish. The output contains no control characters except "\n"; a TAB
//     moves to the next tab stop (every 8 columns unless set with HTS/TBC),
//     so it comes out as spaces.
//   - Printing wraps at the right margin as xterm does (a pending wrap at
//     the last column); a wrapped line is logged as one line. Wide
//     characters (East Asian wide, emoji) take two cells and combining marks
//     none: they join the character before them. Widths come from
//     github.com/mattn/go-runewidth, per code point, as terminals measure.
//   - LF, VT and FF move down without a carriage return, as on a
//     terminal (the PTY driver adds the CR of a program's "\n").
//   - CR, BS, LF/VT/FF, IND, NEL, RI, cursor movement (CUU, CUD, CUF, CUB,
//     CNL, CPL, CHA, HPA, HPR, VPA, VPR, CUP, HVP, CHT, CBT), scroll regions
//     (DECSTBM, SU, SD), insert and delete (ICH, DCH, IL, DL, ECH, IRM),
//     erases (EL, ED), REP, DECSC/DECRC, origin mode, autowrap and the DEC
//     line-drawing character set act on the rows as in xterm. REP repeats
//     only a character printed right before it, as in tmux. The terminfo
//     table in terminfo.go lists every capability of xterm-256color and
//     what the cleaner does with it.
//   - A row that scrolls off the top of a scroll region is committed (it
//     is what a person saw scroll past, and tmux keeps it in its history),
//     even from a region lower down, where rows above the region that are
//     still open then come after it in the log, as in tmux.
//   - The alternate screen (CSI ?1049/?1047/?47 h) commits the rows up to
//     the cursor, emits AltScreenNotice once, and keeps nothing of what is
//     drawn there; on leaving it, the normal screen is back as it was. The
//     cursor is still tracked there, so queries are answered right.
//   - Queries (device attributes, cursor position, modes, colours) produce
//     replies, taken with TakeReplies; see reply.go.
//   - Invalid UTF-8 becomes U+FFFD, one per invalid byte, as Go decodes it; a
//     character split across Writes comes out intact.
//
// Without Commit calls, the output does not depend on how the input was
// split into Writes.
type Cleaner struct {
	// Parser.
	st      pstate
	np      int // index of the CSI parameter being read
	params  [maxParams]int
	marker  byte // CSI private marker (< = > ?), 0 if none
	ib      byte // CSI intermediate byte, 0 if none
	inter   bool // CSI was malformed: ignore it
	csiAny  bool // a parameter byte was seen (a marker must come first)
	strLen  int  // payload bytes of the current OSC/DCS/... string
	osc     [oscKeep]byte
	carry   [utf8.UTFMax]byte
	ncarry  int // bytes of an incomplete UTF-8 character held back
	escIB   byte
	charset bool // G0 is the DEC line-drawing set (ESC ( 0)

	term

	eager   bool
	replies []byte
	dropped int
}

// NewCleaner returns an eager cleaner (rows are committed when a line feed
// leaves them) for a terminal cols wide (0 means 120) and 40 rows high,
// the server's default terminal.
func NewCleaner(cols int) *Cleaner {
	c := NewTerminal(cols, defRows)
	c.eager = true
	return c
}

// NewTerminal returns a deferred cleaner for a terminal cols wide and rows
// high (clamped to 1..MaxCols and 1..MaxRows; 0 cols means 120): rows are
// committed only when they scroll off the screen and by Commit and Close.
func NewTerminal(cols, rows int) *Cleaner {
	if cols <= 0 {
		cols = defCols
	}
	c := &Cleaner{}
	c.term.init(min(cols, MaxCols), max(1, min(rows, MaxRows)))
	return c
}

// AltScreen reports whether the program is in the alternate screen.
func (c *Cleaner) AltScreen() bool { return c.alt }

// AppCursor reports whether the program asked for application cursor keys,
// so arrow keys must be sent as ESC O A rather than ESC [ A.
func (c *Cleaner) AppCursor() bool { return c.modes.appCursor }

// Line returns the text of the row the cursor is on, up to the cursor if it
// stands past the last visible character ("Name: " keeps its space), and
// whether the cursor is at its end, where a prompt leaves it. It is empty in
// the alternate screen.
func (c *Cleaner) Line() (string, bool) {
	if c.alt {
		return "", false
	}
	r := c.row(c.cy)
	t := r.trimmed()
	end := max(t, min(c.cx, len(r.cells)))
	b := c.appendCells(nil, r.cells[:end])
	for range c.cx - end {
		b = append(b, ' ')
	}
	return string(b), c.cx >= t
}

// Pending appends what Commit would append now, without committing it: the
// rows not in the log yet (and rows in it that were drawn again) down to
// the last row with text or the cursor. The committed log followed by
// Pending is what a read of a running program shows.
func (c *Cleaner) Pending(dst []byte) []byte {
	if c.alt {
		return dst
	}
	type saved struct {
		logged             []rune
		nlog               int
		inLog, done, dirty bool
	}
	rows := make([]saved, c.rows)
	for y := range rows {
		r := c.row(y)
		rows[y] = saved{slices.Clone(r.logged), r.nlog, r.inLog, r.done, r.dirty}
	}
	settled, open, next, tailOpen := c.settled, c.open, c.next, c.tailOpen
	dst = c.Commit(dst)
	for y, s := range rows {
		r := c.row(y)
		r.logged = append(r.logged[:0], s.logged...)
		r.nlog, r.inLog, r.done, r.dirty = s.nlog, s.inLog, s.done, s.dirty
	}
	c.settled, c.open, c.next, c.tailOpen = settled, open, next, tailOpen
	return dst
}

// Commit makes the log hold everything the screen shows down to the last
// row with text or the cursor: rows in full, the last one as far as its
// text or the cursor reaches, without a line end ("Name: " keeps its space,
// the blanks zsh prints after its PROMPT_SP mark do not). Call it when the program waits for input, when
// it ended, or when a read must see it all. Text written later on the same
// row continues the committed part; if committed cells are changed
// instead, a later commit logs the row again (see Cleaner).
func (c *Cleaner) Commit(dst []byte) []byte {
	if c.alt {
		return dst
	}
	return c.commit(dst, c.lastRow(), commitCursor)
}

// Flush is Commit, under the name the session uses.
func (c *Cleaner) Flush(dst []byte) []byte { return c.Commit(dst) }

// Close commits everything still pending, including a partial UTF-8 sequence
// (as U+FFFD), and appends it to dst. Call it at end of stream.
//
// Rows up to the last one with text (or the cursor's) are committed, the
// last one with trailing blanks trimmed and without a newline. An
// unfinished escape sequence is dropped, and so are replies not taken.
// Afterwards the cleaner is as new, with the same size and policy (and the
// same DroppedReplies count).
func (c *Cleaner) Close(dst []byte) []byte {
	for c.ncarry > 0 {
		// Each held byte is an error, as Go decodes a truncated sequence.
		c.ncarry--
		dst = c.printRune(dst, utf8.RuneError)
	}
	if !c.alt {
		dst = c.commit(dst, c.lastRow(), commitEnd)
	}
	cols, rows, eager, dropped := c.cols, c.rows, c.eager, c.dropped
	*c = Cleaner{eager: eager, dropped: dropped}
	c.term.init(cols, rows)
	return dst
}

// Resize changes the terminal size. Rows that no longer fit above the
// cursor scroll off (and are committed); lines are not reflowed.
func (c *Cleaner) Resize(dst []byte, cols, rows int) []byte {
	return c.resize(dst, max(1, min(cols, MaxCols)), max(1, min(rows, MaxRows)))
}

// TakeReplies appends the replies to queries found in the output since the
// last call, in order, and forgets them. The owner writes them to the
// program's input (PTY mode only).
func (c *Cleaner) TakeReplies(dst []byte) []byte {
	dst = append(dst, c.replies...)
	c.replies = c.replies[:0]
	return dst
}

// DroppedReplies is how many replies were dropped since the cleaner was
// made because more than ReplyCap bytes of them were waiting.
func (c *Cleaner) DroppedReplies() int { return c.dropped }

func (c *Cleaner) reply(q Query) {
	n := len(c.replies)
	c.replies = AppendReply(c.replies, q, c.state())
	if len(c.replies) > ReplyCap {
		c.replies = c.replies[:n]
		c.dropped++
	}
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
			if b-0x20 < 0x5f { // printable ASCII: the fast path
				j := i + 1
				for j < len(p) && p[j]-0x20 < 0x5f {
					j++
				}
				dst = c.printASCII(dst, p[i:j])
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
			dst = c.printRune(dst, r)
			i += n
			continue

		case stEsc:
			switch {
			case b == '[':
				c.st = stCSI
				c.np, c.params[0], c.marker, c.ib, c.inter, c.csiAny = 0, 0, 0, 0, false, false
			case b == ']':
				c.st, c.strLen, c.last = stOSC, 0, 0
			case b == 'P' || b == 'X' || b == '^' || b == '_':
				c.st, c.strLen, c.last = stStr, 0, 0
			case b >= 0x20 && b <= 0x2f:
				c.st, c.escIB = stEscInter, b
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
				c.escIB = 0 // two intermediates: nothing we act on
			case b >= 0x30 && b <= 0x7e:
				c.st = stGround
				if c.escIB == '(' { // designate G0: ASCII or line drawing
					c.charset = b == '0'
				}
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
				if c.csiAny || c.ib != 0 {
					c.inter = true // a marker after parameters: malformed
				} else {
					c.marker = b
					c.csiAny = true
				}
			case b >= 0x20 && b <= 0x2f:
				if c.ib != 0 {
					c.inter = true // no sequence we act on has two
				}
				c.ib = b
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
			// Swallow the payload up to a terminator, in bulk; keep the
			// start of an OSC to recognise colour queries.
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
				if c.strLen < oscKeep {
					c.osc[c.strLen] = q
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
			case bel:
				c.st = stGround
				c.oscEnd("\a")
			default: // CAN and SUB abort any string
				c.st = stGround
			}

		case stOSCEsc, stStrEsc:
			if b == '\\' {
				if c.st == stOSCEsc {
					c.oscEnd("\x1b\\")
				}
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

// oscEnd looks at a complete OSC for a colour query (OSC 10/11/12 ; ?).
func (c *Cleaner) oscEnd(st string) {
	if c.strLen != 4 || c.osc[0] != '1' || c.osc[2] != ';' || c.osc[3] != '?' || c.osc[1] < '0' || c.osc[1] > '2' {
		return
	}
	c.reply(Query{Kind: QColour, N: 10 + int(c.osc[1]-'0'), ST: st})
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
			return c.printRune(dst, r), p[size-n:]
		}
		// Invalid: the first held byte is an error; look at the rest again.
		dst = c.printRune(dst, utf8.RuneError)
		copy(c.carry[:], c.carry[1:c.ncarry])
		c.ncarry--
	}
	return dst, p
}

// control executes a C0 control (or DEL) in ground state or inside a sequence.
func (c *Cleaner) control(dst []byte, b byte) []byte {
	if b != esc {
		c.last = 0 // REP repeats only a character right before it, as in tmux
	}
	switch b {
	case '\n', 0x0b, 0x0c:
		return c.lineFeed(dst)
	case '\r':
		c.cx, c.wrapnext = 0, false
	case '\b':
		if c.cx > 0 && !c.wrapnext {
			c.cx--
		}
		c.wrapnext = false
	case '\t':
		c.tab(1)
	case esc:
		c.st = stEsc
	}
	// BEL, NUL, SO, SI, DEL and the rest are dropped.
	return dst
}

// param returns CSI parameter i, or def when it is absent or zero.
func (c *Cleaner) param(i, def int) int {
	if i > c.np || c.params[i] == 0 {
		return def
	}
	return c.params[i]
}

func (c *Cleaner) escFinal(dst []byte, b byte) []byte {
	c.last = 0
	switch b {
	case 'c': // RIS: full reset, which also leaves the alternate screen
		dst = c.reset(dst)
	case '7':
		c.saveCursor()
	case '8':
		c.restoreCursor()
	case 'M': // RI
		dst = c.reverseIndex(dst)
	case 'D': // IND
		dst = c.lineFeed(dst)
	case 'E': // NEL
		dst = c.lineFeed(dst)
		c.cx = 0
	case 'H': // HTS
		c.tabs[c.cx] = true
	}
	// ESC =, ESC >, ESC 6, ESC 9, ...: keypad and other modes, no text effect.
	return dst
}

func (c *Cleaner) csiFinal(dst []byte, b byte) []byte {
	if b != 'b' {
		c.last = 0
	}
	if c.inter {
		return dst
	}
	switch c.marker {
	case 0:
	case '?':
		switch {
		case c.ib == 0 && (b == 'h' || b == 'l'):
			for i := 0; i <= c.np; i++ {
				dst = c.setPrivate(dst, c.params[i], b == 'h')
			}
		case c.ib == 0 && b == 'n' && c.params[0] == 6:
			c.reply(Query{Kind: QExtCursor})
		case c.ib == '$' && b == 'p':
			c.reply(Query{Kind: QMode, N: c.params[0], Private: true})
		case c.ib == 0 && b == 'u':
			c.reply(Query{Kind: QKitty})
		}
		return dst
	case '>':
		switch {
		case c.ib == 0 && b == 'c' && c.params[0] == 0:
			c.reply(Query{Kind: QDA2})
		case c.ib == 0 && b == 'q' && c.params[0] == 0:
			c.reply(Query{Kind: QVersion})
		}
		return dst
	default:
		return dst
	}
	switch c.ib {
	case 0:
	case '$':
		if b == 'p' {
			c.reply(Query{Kind: QMode, N: c.params[0]})
		}
		return dst
	case '!':
		if b == 'p' {
			c.softReset()
		}
		return dst
	default: // DECSCUSR (SP q) and the like: no effect on text
		return dst
	}
	n := c.param(0, 1)
	switch b {
	case 'A': // CUU
		c.cursorUp(n)
	case 'F': // CPL
		c.cursorUp(n)
		c.cx = 0
	case 'B', 'e': // CUD, VPR
		c.cursorDown(n)
	case 'E': // CNL
		c.cursorDown(n)
		c.cx = 0
	case 'C', 'a': // CUF, HPR
		c.moveTo(c.cx+n, c.cy)
	case 'D': // CUB
		c.moveTo(c.cx-n, c.cy)
	case 'G', '`': // CHA, HPA
		c.moveTo(n-1, c.cy)
	case 'I': // CHT
		c.tab(n)
	case 'Z': // CBT
		c.backTab(n)
	case 'H', 'f': // CUP, HVP
		c.moveAbs(c.param(1, 1)-1, n-1)
	case 'd': // VPA
		c.moveAbs(c.cx, n-1)
	case 's': // SCOSC; with parameters it is DECSLRM (left/right margins), ignored
		if c.np == 0 && c.params[0] == 0 {
			c.saveCursor()
		}
	case 'u': // SCORC
		c.restoreCursor()
	case 'K':
		c.eraseInLine(c.param(0, 0))
	case 'J':
		dst = c.eraseInDisplay(dst, c.param(0, 0))
	case 'X': // ECH
		c.eraseChars(n)
	case 'P': // DCH
		c.deleteChars(n)
	case '@': // ICH
		c.insertChars(n)
	case 'L': // IL
		c.insertLines(n)
	case 'M': // DL
		c.deleteLines(n)
	case 'S': // SU
		dst = c.scrollUp(dst, c.top, n)
	case 'T': // SD
		if c.np == 0 { // with more parameters it is mouse tracking
			c.scrollDown(c.top, n)
		}
	case 'b': // REP
		dst = c.repeat(dst, n)
	case 'r': // DECSTBM
		c.setRegion(c.param(0, 1)-1, c.param(1, c.rows)-1)
	case 'g': // TBC
		switch c.param(0, 0) {
		case 0:
			c.tabs[c.cx] = false
		case 3:
			clear(c.tabs)
		}
	case 'h', 'l': // SM, RM
		for i := 0; i <= c.np; i++ {
			if c.params[i] == 4 {
				c.modes.insert = b == 'h'
			}
		}
	case 'n': // DSR
		switch c.params[0] {
		case 5:
			c.reply(Query{Kind: QStatus})
		case 6:
			c.reply(Query{Kind: QCursor})
		}
	case 'c': // DA1
		if c.params[0] == 0 {
			c.reply(Query{Kind: QDA1})
		}
	}
	// SGR (m), window operations (t) and the rest: no effect on text.
	return dst
}

// setPrivate applies one DEC private mode (CSI ? n h / l).
func (c *Cleaner) setPrivate(dst []byte, mode int, on bool) []byte {
	switch mode {
	case 1: // DECCKM: arrow keys send ESC O A instead of ESC [ A
		c.modes.appCursor = on
	case 6: // DECOM
		c.modes.origin = on
		c.moveAbs(0, 0)
	case 7: // DECAWM
		c.modes.autowrap = on
		c.wrapnext = false
	case 25: // DECTCEM
		c.modes.hidden = !on
	case 1048:
		if on {
			c.saveCursor()
		} else {
			c.restoreCursor()
		}
	case 1049, 1047, 47:
		if on {
			dst = c.enterAlt(dst, mode == 1049)
		} else {
			c.leaveAlt(mode == 1049)
		}
	}
	return dst
}
