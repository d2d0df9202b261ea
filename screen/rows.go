package screen

import (
	"slices"
	"unicode/utf8"

	"github.com/mattn/go-runewidth"
)

// Cell values besides runes: the right half of a wide character, and
// grapheme clusters (a character with combining marks) by index.
const (
	wideRight   rune = 0
	clusterBase rune = utf8.MaxRune + 1
	maxClusters      = 1024 // distinct clusters per cleaner; more marks are dropped
	maxCluster       = 32   // bytes of one cluster; more marks are dropped
)

// row is one row of the screen. Cells past len(cells) are blank.
type row struct {
	cells []rune
	nlog  int  // cells of the row the log holds
	inLog bool // the log holds the row, or its start (done is false)
	done  bool // the log holds the row with its line end
	dirty bool // edited since it was logged; logged is then valid
	wrap  bool // printing wrapped from this row onto the next
	// logged is the first nlog cells as the log has them, copied at the
	// first edit after logging: rows that are logged and scroll away
	// unedited, as plain output does, are never copied.
	logged []rune
}

func (r *row) reset() {
	r.cells, r.logged = r.cells[:0], r.logged[:0]
	r.nlog, r.inLog, r.done, r.dirty, r.wrap = 0, false, false, false, false
}

// touch is called before a logged row is changed.
func (r *row) touch() {
	if !r.inLog || r.dirty {
		return
	}
	r.logged = append(r.logged[:0], r.cells[:min(r.nlog, len(r.cells))]...)
	for len(r.logged) < r.nlog {
		r.logged = append(r.logged, ' ')
	}
	r.dirty = true
}

func (r *row) trimmed() int {
	n := len(r.cells)
	for n > 0 && r.cells[n-1] == ' ' {
		n--
	}
	return n
}

func (r *row) cell(x int) rune {
	if x < len(r.cells) {
		return r.cells[x]
	}
	return ' '
}

// changed reports whether the row differs from what the log holds of it.
// Comparing (rather than trusting the dirty flag alone) means a redraw with
// identical content is not a change.
func (r *row) changed() bool {
	if !r.inLog || !r.dirty {
		return false
	}
	n := r.nlog
	if r.done {
		n = max(n, len(r.cells))
	}
	for i := range n {
		l := rune(' ')
		if i < len(r.logged) {
			l = r.logged[i]
		}
		if r.cell(i) != l {
			return true
		}
	}
	r.dirty = false
	return false
}

// buffer is one screen's rows, a ring so that scrolling the whole screen
// moves no rows.
type buffer struct {
	ring []*row
	base int
}

type modes struct {
	appCursor, origin, autowrap, insert, hidden bool
}

type savedCursor struct {
	x, y     int
	wrapnext bool
	origin   bool
	charset  bool
}

// term is the row model of a Cleaner.
type term struct {
	cols, rows     int
	normal, altBuf buffer
	alt            bool
	cx, cy         int
	wrapnext       bool // the next character wraps first (xterm's pending wrap)
	top, bot       int  // scroll region, inclusive
	modes          modes
	tabs           []bool
	saved          [2]savedCursor // normal, alternate
	last           rune           // last character printed, for REP
	lastW          int
	charset        bool // G0 is the DEC line-drawing set (ESC ( 0)

	// The log's tail. settled rows at the top are in the log in full and
	// unchanged; open is the row whose start ends the log; next is the row
	// a wrapped row continues on; tailOpen means the log does not end with
	// a line break.
	settled  int
	open     *row
	next     *row
	tailOpen bool

	clusters []string
	clusterN map[string]rune

	// width measures characters per code point, as terminals do (wcwidth),
	// not per grapheme cluster; East Asian ambiguous characters are narrow
	// whatever the locale, as in xterm and tmux under a UTF-8 locale.
	width runewidth.Condition
}

func (t *term) init(cols, rows int) {
	t.cols, t.rows = cols, rows
	t.normal = newBuffer(rows)
	t.tabs = make([]bool, cols)
	for x := 0; x < cols; x += tabWidth {
		t.tabs[x] = true
	}
	t.top, t.bot = 0, rows-1
	t.modes.autowrap = true
	t.width = runewidth.Condition{StrictEmojiNeutral: true}
}

func newBuffer(rows int) buffer {
	b := buffer{ring: make([]*row, rows)}
	for i := range b.ring {
		b.ring[i] = &row{}
	}
	return b
}

func (t *term) buf() *buffer {
	if t.alt {
		return &t.altBuf
	}
	return &t.normal
}

// row returns row y (0 <= y < rows) of the current screen.
func (t *term) row(y int) *row {
	b := t.buf()
	return b.ring[(b.base+y)%t.rows]
}

// edit returns row y for a change, marking it changed if the log has it.
func (t *term) edit(y int) *row {
	r := t.row(y)
	if r.inLog {
		r.touch()
		t.settled = min(t.settled, y)
	}
	return r
}

// recycle blanks r for reuse as a new row.
func (t *term) recycle(r *row) {
	if r == t.open {
		t.open = nil
	}
	if r == t.next {
		t.next = nil
	}
	r.reset()
}

// lastRow is the last row with text, or the cursor's row if that is lower.
func (t *term) lastRow() int {
	for y := t.rows - 1; y > t.cy; y-- {
		if t.row(y).trimmed() > 0 {
			return y
		}
	}
	return t.cy
}

// Commit modes: how far the last row of a commit goes.
type commitMode uint8

const (
	commitFull   commitMode = iota // with its line end
	commitCursor                   // its text or up to the cursor, no line end
	commitEnd                      // its text, no line end
	commitText                     // with its line end if it has text, else not at all
)

// commit makes the log hold rows 0..last of the normal screen, the last one
// as mode says, and appends what that takes to dst.
func (c *Cleaner) commit(dst []byte, last int, mode commitMode) []byte {
	if o := c.open; o != nil && !o.changed() {
		// The log ends with the start of a row: finish that line first if
		// it is to be committed in full, even if rows above it were drawn
		// again, so it is not cut by their new state.
		for y := c.settled; y < last || y == last && mode == commitFull; y++ {
			if c.row(y) == o {
				dst = c.commitRow(dst, y, last, commitFull)
				break
			}
		}
	}
	for y := c.settled; y <= last; y++ {
		if r := c.row(y); r.done && !r.changed() {
			continue
		}
		if y == last && mode != commitFull {
			end := c.row(y).trimmed()
			if end == 0 && (mode == commitText || mode == commitCursor) {
				break // a row with nothing visible waits for text
			}
		}
		dst = c.commitRow(dst, y, last, mode)
	}
	if mode == commitFull {
		c.settled = max(c.settled, last+1)
	} else {
		c.settled = max(c.settled, last)
	}
	return dst
}

// commitRow logs row y, in full unless it is the last row of a commit in
// another mode.
func (c *Cleaner) commitRow(dst []byte, y, last int, mode commitMode) []byte {
	r := c.row(y)
	full := y < last || mode == commitFull || mode == commitText
	end := r.trimmed()
	if full && r.wrap {
		end = len(r.cells)
	}
	if !full && mode == commitCursor && y == c.cy {
		end = max(end, min(c.cx, c.cols))
	}
	var next *row
	if r.wrap && y+1 < c.rows {
		next = c.row(y + 1)
	}
	return c.emit(dst, r, end, full, next)
}

// emit logs row r up to cell end, with its line end if full (unless it
// wrapped onto next).
func (c *Cleaner) emit(dst []byte, r *row, end int, full bool, next *row) []byte {
	from := 0
	switch {
	case r == c.open && !r.changed():
		from = r.nlog // continue the start already logged
	case r == c.next && !r.inLog:
		// the wrapped row above ended the log: continue its line
	default:
		if r.inLog && end == 0 {
			// A logged row that was erased: end the log's line, and log
			// nothing for the row until it has text again.
			if c.tailOpen {
				dst = append(dst, '\n')
			}
			c.open, c.next, c.tailOpen = nil, nil, false
			r.nlog, r.done, r.dirty = 0, full, false
			return dst
		}
		if c.tailOpen {
			dst = append(dst, '\n')
		}
	}
	if from < end {
		if from < len(r.cells) {
			dst = c.appendCells(dst, r.cells[from:min(end, len(r.cells))])
		}
		for range end - max(from, len(r.cells)) { // the cursor stands past the text
			dst = append(dst, ' ')
		}
		r.nlog = end
	}
	r.inLog, r.dirty, r.done = true, false, full
	c.open, c.next = nil, nil
	switch {
	case !full:
		c.open = r
		c.tailOpen = r.nlog > 0
	case next != nil:
		c.next = next
		c.tailOpen = true
	default:
		dst = append(dst, '\n')
		c.tailOpen = false
	}
	return dst
}

// appendCells appends the text of cells to dst.
func (c *Cleaner) appendCells(dst []byte, cells []rune) []byte {
	// ASCII cells are stored into the grown slice directly; from the first
	// other cell on, encode one by one.
	n := len(dst)
	dst = slices.Grow(dst, len(cells))[:n+len(cells)]
	out := dst[n:]
	for k, r := range cells {
		if r >= utf8.RuneSelf || r == wideRight {
			dst = dst[:n+k]
			for _, r := range cells[k:] {
				switch {
				case r == wideRight:
				case r >= clusterBase:
					dst = append(dst, c.clusters[r-clusterBase]...)
				default:
					dst = utf8.AppendRune(dst, r)
				}
			}
			return dst
		}
		out[k] = byte(r)
	}
	return dst
}

// Printing.

// decGraphics maps the DEC special graphics set (ESC ( 0) to Unicode, for
// the bytes 0x5f..0x7e.
var decGraphics = [32]rune{
	' ', '◆', '▒', '␉', '␌', '␍', '␊', '°', '±', '␤', '␋', '┘', '┐', '┌', '└', '┼',
	'⎺', '⎻', '─', '⎼', '⎽', '├', '┤', '┴', '┬', '│', '≤', '≥', 'π', '≠', '£', '·',
}

func (c *Cleaner) printRune(dst []byte, r rune) []byte {
	if r >= 0x80 && r < 0xa0 {
		return dst // C1 controls, UTF-8 encoded: never text
	}
	if c.charset && r >= 0x5f && r <= 0x7e {
		r = decGraphics[r-0x5f]
	}
	w := 1
	if r >= utf8.RuneSelf {
		w = c.width.RuneWidth(r)
	}
	return c.put(dst, r, w)
}

// printText prints a run of text: printable ASCII in bulk, other
// characters one by one (each invalid byte as U+FFFD, as Go decodes).
func (c *Cleaner) printText(dst, run []byte) []byte {
	for len(run) > 0 {
		if run[0] < utf8.RuneSelf {
			j := 1
			for j < len(run) && run[j] < utf8.RuneSelf {
				j++
			}
			dst = c.printASCII(dst, run[:j])
			run = run[j:]
			continue
		}
		r, n := utf8.DecodeRune(run)
		dst = c.printRune(dst, r)
		run = run[n:]
	}
	return dst
}

// printASCII prints a run of printable ASCII.
func (c *Cleaner) printASCII(dst []byte, run []byte) []byte {
	for len(run) > 0 {
		if c.wrapnext || c.modes.insert || c.charset {
			dst = c.printRune(dst, rune(run[0]))
			run = run[1:]
			continue
		}
		r := c.edit(c.cy)
		n := min(len(run), c.cols-c.cx)
		x := c.cx
		for len(r.cells) < x {
			r.cells = append(r.cells, ' ')
		}
		c.unsplit(r, x, x+n)
		if k := min(n, len(r.cells)-x); k > 0 { // overwrite (a redraw after CR)
			cells := r.cells[x : x+k]
			for i, b := range run[:k] {
				cells[i] = rune(b)
			}
		}
		if k := max(0, len(r.cells)-x); k < n {
			old := len(r.cells)
			r.cells = slices.Grow(r.cells, n-k)[:old+n-k]
			cells := r.cells[old:]
			for i, b := range run[k:n] {
				cells[i] = rune(b)
			}
		}
		c.last, c.lastW = rune(run[n-1]), 1
		run = run[n:]
		c.cx += n
		if c.cx >= c.cols {
			c.cx = c.cols - 1
			c.wrapnext = c.modes.autowrap
		}
	}
	return dst
}

// unsplit blanks the other half of any wide character that cells [from,
// to) of r cut in two, before they are overwritten.
func (c *Cleaner) unsplit(r *row, from, to int) {
	if from > 0 && from < len(r.cells) && r.cells[from] == wideRight {
		r.cells[from-1] = ' '
	}
	if to < len(r.cells) && r.cells[to] == wideRight {
		r.cells[to] = ' '
	}
}

// put prints one character of width w at the cursor.
func (c *Cleaner) put(dst []byte, ch rune, w int) []byte {
	if w == 0 {
		c.combine(ch)
		return dst
	}
	if w > c.cols {
		w = 1
	}
	if c.wrapnext && c.modes.autowrap {
		dst = c.wrap(dst)
	}
	if c.cx+w > c.cols { // a wide character at the last column
		if c.modes.autowrap {
			dst = c.wrap(dst)
		} else {
			c.cx = c.cols - w
		}
	}
	r := c.edit(c.cy)
	x := c.cx
	if c.modes.insert {
		c.insertCells(r, x, w)
	}
	for len(r.cells) < x+w {
		r.cells = append(r.cells, ' ')
	}
	c.unsplit(r, x, x+w)
	r.cells[x] = ch
	if w == 2 {
		r.cells[x+1] = wideRight
	}
	c.last, c.lastW = ch, w
	c.cx += w
	if c.cx >= c.cols {
		c.cx = c.cols - 1
		c.wrapnext = c.modes.autowrap
	}
	return dst
}

// wrap moves to the start of the next row, marking the row left as
// continued there.
func (c *Cleaner) wrap(dst []byte) []byte {
	c.edit(c.cy).wrap = true
	c.wrapnext, c.cx = false, 0
	return c.index(dst)
}

// combine joins a zero-width character to the one before the cursor.
func (c *Cleaner) combine(ch rune) {
	x := c.cx - 1
	if c.wrapnext {
		x = c.cx
	}
	r := c.row(c.cy)
	if x >= 0 && x < len(r.cells) && r.cells[x] == wideRight {
		x--
	}
	if x < 0 || x >= len(r.cells) {
		return
	}
	base := r.cells[x]
	var s string
	if base >= clusterBase {
		s = c.clusters[base-clusterBase]
	} else {
		s = string(base)
	}
	s += string(ch)
	if len(s) > maxCluster {
		return
	}
	id, ok := c.clusterN[s]
	if !ok {
		if len(c.clusters) >= maxClusters {
			return
		}
		if c.clusterN == nil {
			c.clusterN = map[string]rune{}
		}
		id = clusterBase + rune(len(c.clusters))
		c.clusters = append(c.clusters, s)
		c.clusterN[s] = id
	}
	c.edit(c.cy).cells[x] = id
}

// repeat prints the last character n more times (REP).
func (c *Cleaner) repeat(dst []byte, n int) []byte {
	if c.last == 0 {
		return dst
	}
	for range n {
		dst = c.put(dst, c.last, c.lastW)
	}
	return dst
}

// Cursor movement.

func (c *Cleaner) moveTo(x, y int) {
	c.cx = max(0, min(x, c.cols-1))
	c.cy = max(0, min(y, c.rows-1))
	c.wrapnext = false
}

// moveAbs moves to a position given by the program, relative to the scroll
// region in origin mode.
func (c *Cleaner) moveAbs(x, y int) {
	if c.modes.origin {
		c.moveTo(x, max(c.top, min(y+c.top, c.bot)))
		return
	}
	c.moveTo(x, y)
}

func (c *Cleaner) cursorUp(n int) {
	lim := 0
	if c.cy >= c.top {
		lim = c.top
	}
	c.moveTo(c.cx, max(c.cy-n, lim))
}

func (c *Cleaner) cursorDown(n int) {
	lim := c.rows - 1
	if c.cy <= c.bot {
		lim = c.bot
	}
	c.moveTo(c.cx, min(c.cy+n, lim))
}

func (c *Cleaner) tab(n int) {
	x := c.cx
	for ; n > 0 && x < c.cols-1; n-- {
		x++
		for x < c.cols-1 && !c.tabs[x] {
			x++
		}
	}
	c.moveTo(x, c.cy)
}

func (c *Cleaner) backTab(n int) {
	x := c.cx
	for ; n > 0 && x > 0; n-- {
		x--
		for x > 0 && !c.tabs[x] {
			x--
		}
	}
	c.moveTo(x, c.cy)
}

// lineFeed is LF, VT, FF and IND. An eager cleaner commits the rows up to
// the one the cursor leaves.
func (c *Cleaner) lineFeed(dst []byte) []byte {
	c.wrapnext = false
	if c.eager && !c.alt {
		dst = c.commit(dst, c.cy, commitFull)
	}
	return c.index(dst)
}

// index moves the cursor down a row, scrolling at the bottom of the region.
func (c *Cleaner) index(dst []byte) []byte {
	switch {
	case c.cy == c.bot:
		dst = c.scrollUp(dst, c.top, 1)
	case c.cy < c.rows-1:
		c.cy++
	}
	return dst
}

func (c *Cleaner) reverseIndex(dst []byte) []byte {
	c.wrapnext = false
	switch {
	case c.cy == c.top:
		c.scrollDown(c.top, 1)
	case c.cy > 0:
		c.cy--
	}
	return dst
}

func (c *Cleaner) setRegion(top, bot int) {
	bot = min(bot, c.rows-1)
	if top >= bot {
		return
	}
	c.top, c.bot = top, bot
	c.moveAbs(0, 0)
}

// Scrolling and lines.

// scrollUp scrolls rows top..bot up by n. On the normal screen, a row that
// leaves the top of the screen is committed first.
func (c *Cleaner) scrollUp(dst []byte, top, n int) []byte {
	if top > c.bot {
		return dst
	}
	n = min(n, c.bot-top+1)
	for range n {
		switch {
		case c.alt:
		case top == 0:
			dst = c.commit(dst, 0, commitFull)
			c.settled = max(0, min(c.settled-1, c.bot))
		default:
			// As tmux does, the row leaving a region lower down goes to
			// the log too, before the open rows above the region.
			if r := c.row(top); !r.done || r.changed() {
				dst = c.commitRow(dst, top, top, commitFull)
			}
			c.settled = min(c.settled, top)
		}
		b := c.buf()
		if top == 0 && c.bot == c.rows-1 {
			c.recycle(b.ring[b.base])
			b.base = (b.base + 1) % c.rows
			continue
		}
		c.shift(top, c.bot, true)
	}
	return dst
}

// shift moves rows top..bot of the current screen up (or down) by one; the
// row pushed out comes back blank at the other end.
func (c *Cleaner) shift(top, bot int, up bool) {
	b := c.buf()
	at := func(y int) *(*row) { return &b.ring[(b.base+y)%c.rows] }
	if up {
		out := *at(top)
		for y := top; y < bot; y++ {
			*at(y) = *at(y + 1)
		}
		c.recycle(out)
		*at(bot) = out
	} else {
		out := *at(bot)
		for y := bot; y > top; y-- {
			*at(y) = *at(y - 1)
		}
		c.recycle(out)
		*at(top) = out
	}
}

func (c *Cleaner) scrollDown(top, n int) {
	if top > c.bot {
		return
	}
	n = min(n, c.bot-top+1)
	c.settled = min(c.settled, top)
	for range n {
		c.shift(top, c.bot, false)
	}
}

func (c *Cleaner) insertLines(n int) {
	if c.cy < c.top || c.cy > c.bot {
		return
	}
	c.scrollDown(c.cy, n)
	c.cx, c.wrapnext = 0, false
}

func (c *Cleaner) deleteLines(n int) {
	if c.cy < c.top || c.cy > c.bot {
		return
	}
	n = min(n, c.bot-c.cy+1)
	c.settled = min(c.settled, c.cy)
	for range n {
		c.shift(c.cy, c.bot, true)
	}
	c.cx, c.wrapnext = 0, false
}

// Erasing and editing within a row.

func (c *Cleaner) eraseInLine(mode int) {
	r := c.edit(c.cy)
	switch mode {
	case 0: // cursor to end
		if c.cx < len(r.cells) {
			c.unsplit(r, c.cx, len(r.cells))
			r.cells = r.cells[:c.cx]
		}
		r.wrap = false
	case 1: // start to cursor, inclusive
		end := min(c.cx+1, len(r.cells))
		c.unsplit(r, 0, end)
		for i := range end {
			r.cells[i] = ' '
		}
	case 2:
		r.cells = r.cells[:0]
		r.wrap = false
	}
}

// eraseInDisplay is ED. Clearing the whole normal screen (ED 2, or ED 0
// from the home position) first pushes the rows with text up into the log,
// as tmux does (its scroll-on-clear) and as a person saw them.
func (c *Cleaner) eraseInDisplay(dst []byte, mode int) []byte {
	if !c.alt && (mode == 2 || mode == 0 && c.cx == 0 && c.cy == 0) {
		last := -1
		for y := c.rows - 1; y >= 0; y-- {
			if c.row(y).trimmed() > 0 {
				last = y
				break
			}
		}
		if last >= 0 {
			dst = c.commit(dst, last, commitFull)
		}
		for y := range c.rows {
			c.recycle(c.row(y))
		}
		c.settled = 0
		return dst
	}
	switch mode {
	case 0:
		c.eraseInLine(0)
		for y := c.cy + 1; y < c.rows; y++ {
			c.clearRow(y)
		}
	case 1:
		for y := range c.cy {
			c.clearRow(y)
		}
		c.eraseInLine(1)
	case 2:
		for y := range c.rows {
			c.clearRow(y)
		}
	}
	return dst
}

func (c *Cleaner) clearRow(y int) {
	r := c.edit(y)
	r.cells, r.wrap = r.cells[:0], false
}

func (c *Cleaner) eraseChars(n int) {
	r := c.edit(c.cy)
	end := min(c.cx+n, len(r.cells))
	if c.cx >= end {
		return
	}
	c.unsplit(r, c.cx, end)
	for i := c.cx; i < end; i++ {
		r.cells[i] = ' '
	}
}

func (c *Cleaner) deleteChars(n int) {
	r := c.edit(c.cy)
	if c.cx >= len(r.cells) {
		return
	}
	end := min(c.cx+n, len(r.cells))
	c.unsplit(r, c.cx, end)
	r.cells = slices.Delete(r.cells, c.cx, end)
}

func (c *Cleaner) insertChars(n int) {
	r := c.edit(c.cy)
	if c.cx < len(r.cells) {
		c.insertCells(r, c.cx, n)
	}
}

// insertCells shifts cells from x on right by n blanks; what passes the
// right margin falls off.
func (c *Cleaner) insertCells(r *row, x, n int) {
	if x >= len(r.cells) {
		return
	}
	n = min(n, c.cols-x)
	c.unsplit(r, x, x)
	r.cells = slices.Insert(r.cells, x, slices.Repeat([]rune{' '}, n)...)
	if len(r.cells) > c.cols {
		if r.cells[c.cols] == wideRight {
			r.cells[c.cols-1] = ' '
		}
		r.cells = r.cells[:c.cols]
	}
}

// Cursor save and restore, screens, resets.

func (c *Cleaner) saveCursor() {
	c.saved[c.screenIndex()] = savedCursor{x: c.cx, y: c.cy, wrapnext: c.wrapnext, origin: c.modes.origin, charset: c.charset}
}

func (c *Cleaner) restoreCursor() {
	s := c.saved[c.screenIndex()]
	c.moveTo(s.x, s.y)
	c.wrapnext, c.modes.origin, c.charset = s.wrapnext, s.origin, s.charset
}

func (c *Cleaner) screenIndex() int {
	if c.alt {
		return 1
	}
	return 0
}

func (c *Cleaner) enterAlt(dst []byte, save bool) []byte {
	if c.alt {
		return dst
	}
	if save {
		c.saveCursor()
	}
	dst = c.commit(dst, c.cy, commitText)
	dst = append(dst, AltScreenNotice...)
	if c.altBuf.ring == nil {
		c.altBuf = newBuffer(c.rows)
	}
	c.alt = true
	for y := range c.rows {
		c.row(y).reset()
	}
	return dst
}

func (c *Cleaner) leaveAlt(restore bool) {
	if !c.alt {
		return
	}
	c.alt = false
	if restore {
		c.restoreCursor()
	}
}

func (c *Cleaner) softReset() {
	c.modes = modes{autowrap: true}
	c.top, c.bot = 0, c.rows-1
	c.charset, c.wrapnext = false, false
	c.saved[c.screenIndex()] = savedCursor{}
}

// reset is RIS: the rows with text are committed, as a person saw them, and
// the terminal starts over.
func (c *Cleaner) reset(dst []byte) []byte {
	c.leaveAlt(false)
	dst = c.eraseInDisplay(dst, 2)
	c.softReset()
	c.saved = [2]savedCursor{}
	for x := range c.tabs {
		c.tabs[x] = x%tabWidth == 0
	}
	c.moveTo(0, 0)
	return dst
}

// resize changes the size of both screens. Rows above the cursor that no
// longer fit scroll off (and are committed); rows below it are dropped;
// cells past the new width are cut.
func (c *Cleaner) resize(dst []byte, cols, rows int) []byte {
	wasAlt := c.alt
	c.alt = false
	for c.cy >= rows {
		dst = c.commit(dst, 0, commitFull)
		c.recycle(c.row(0))
		c.normal.base = (c.normal.base + 1) % c.rows
		c.cy--
		c.settled = max(0, c.settled-1)
	}
	ring := make([]*row, rows)
	for y := range rows {
		if y < c.rows {
			ring[y] = c.row(y)
		} else {
			ring[y] = &row{}
		}
	}
	for y := rows; y < c.rows; y++ {
		c.recycle(c.row(y))
	}
	for _, r := range ring {
		if len(r.cells) > cols {
			r.touch()
			if r.cells[cols] == wideRight {
				r.cells[cols-1] = ' '
			}
			r.cells = r.cells[:cols]
		}
	}
	c.normal = buffer{ring: ring}
	if c.altBuf.ring != nil {
		c.altBuf = newBuffer(rows)
	}
	c.alt = wasAlt
	c.settled = 0
	tabs := make([]bool, cols)
	for x := range tabs {
		tabs[x] = x%tabWidth == 0
		if x < c.cols {
			tabs[x] = c.tabs[x]
		}
	}
	c.cols, c.rows, c.tabs = cols, rows, tabs
	c.top, c.bot = 0, rows-1
	c.moveTo(c.cx, c.cy)
	return dst
}

// state is what replies are computed from.
func (c *Cleaner) state() replyState {
	y := c.cy
	if c.modes.origin {
		y -= c.top
	}
	return replyState{
		Row: y + 1, Col: c.cx + 1,
		AppCursor: c.modes.appCursor, Origin: c.modes.origin, Autowrap: c.modes.autowrap,
		Insert: c.modes.insert, CursorVisible: !c.modes.hidden, AltScreen: c.alt,
	}
}
