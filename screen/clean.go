package screen

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
	tok  tokenizer // bytes to tokens (token.go)
	term           // the row model the tokens act on (dispatch.go, rows.go)

	eager   bool
	replies []byte
	dropped int
	onOSC   func(payload []byte) // OnOSC's
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

// OnOSC has Write call f with the payload of each OSC sequence in the
// output (what stands between ESC ] and its terminator, OSCCap bytes at
// most; valid until f returns), at the point where the sequence ends: f
// sees the Cleaner as that point left it (Line, TakeReplies), and may call
// those, but not Write. An OSC that another sequence's ESC ends is passed
// too; one that CAN or SUB aborts, or that runs past OSCCap, is not. This
// is how a caller reads shell-integration marks (OSC 133 and 633) without
// a parser of its own; nil stops the calls.
func (c *Cleaner) OnOSC(f func(payload []byte)) {
	c.onOSC, c.tok.keep = f, f != nil
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
	for c.tok.ncarry > 0 {
		// Each held byte is an error, as Go decodes a truncated sequence.
		c.tok.ncarry--
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

func (c *Cleaner) reply(q query) {
	n := len(c.replies)
	c.replies = appendReply(c.replies, q, c.state())
	if len(c.replies) > ReplyCap {
		c.replies = c.replies[:n]
		c.dropped++
	}
}

// Write consumes p and appends the text it commits to dst. The result is
// valid UTF-8. The tokenizer cuts p into tokens; each is dispatched by kind.
func (c *Cleaner) Write(dst, p []byte) []byte {
	for i := 0; ; {
		t, j := c.tok.next(p, i)
		i = j
		switch t.kind {
		case tokNone: // p is used up
			return dst
		case tokText:
			dst = c.printASCII(dst, t.text)
		case tokUTF8:
			dst = c.printText(dst, t.text)
		case tokRune:
			dst = c.printRune(dst, t.r)
		case tokControl:
			dst = c.control(dst, t.b)
		case tokEsc:
			dst = c.escDispatch(dst, &c.tok.escape)
		case tokCSI:
			dst = c.csiDispatch(dst, &c.tok.csi)
		case tokString: // an OSC, DCS, SOS, PM or APC string begins
			c.last = 0
		case tokOSC:
			payload, n := c.tok.oscPayload()
			c.oscDispatch(payload, n, t.b)
			if c.onOSC != nil {
				c.onOSC(c.tok.payload)
			}
		}
	}
}
