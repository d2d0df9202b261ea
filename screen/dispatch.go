package screen

// Dispatch: what the Cleaner does with each token of the tokenizer
// (token.go), by family: C0 controls, ESC sequences, CSI sequences (cursor
// movement, editing and erasing, modes, queries) and OSC strings. The
// actions themselves act on the row model (rows.go).

// control executes a C0 control (or DEL), in ground state or inside a
// sequence. ESC never gets here: it is the tokenizer's.
func (c *Cleaner) control(dst []byte, b byte) []byte {
	c.last = 0 // REP repeats only a character right before it, as in tmux
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
	}
	// BEL, NUL, SO, SI, DEL and the rest are dropped.
	return dst
}

// escDispatch executes an ESC sequence.
func (c *Cleaner) escDispatch(dst []byte, s *escSeq) []byte {
	switch {
	case s.bad:
	case s.ib == '(': // designate G0: ASCII or line drawing
		c.charset = s.final == '0'
	case s.ib == 0:
		return c.escFinal(dst, s.final)
	}
	// Other charset designations (G1..G3), DECALN and the like: no text
	// effect.
	return dst
}

// escFinal executes ESC F without intermediates.
func (c *Cleaner) escFinal(dst []byte, b byte) []byte {
	c.last = 0
	switch b {
	case 'c': // RIS: full reset, which also leaves the alternate screen
		dst = c.reset(dst)
	case '7': // DECSC
		c.saveCursor()
	case '8': // DECRC
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

// csiDispatch executes a CSI sequence, by family.
func (c *Cleaner) csiDispatch(dst []byte, s *csiSeq) []byte {
	if s.final != 'b' {
		c.last = 0 // REP repeats only a character right before it
	}
	if s.bad {
		return dst
	}
	switch s.cmd() {
	case 'm': // SGR: colours and attributes leave no text
	case 'A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I', 'Z', 'a', 'd', 'e', 'f', '`', 's', 'u', 'g':
		c.csiCursor(s)
	case 'K', 'J', 'X', 'P', '@', 'L', 'M', 'S', 'T', 'b', 'r':
		dst = c.csiEdit(dst, s)
	case 'h', 'l', cmd('?', 0, 'h'), cmd('?', 0, 'l'), cmd(0, '!', 'p'):
		dst = c.csiMode(dst, s)
	default:
		if q, ok := csiQuery(s); ok {
			c.reply(q)
		}
	}
	// Window operations (t), cursor style (SP q) and the rest: no effect on
	// text.
	return dst
}

// csiCursor executes cursor movement, cursor save and restore, and tab
// stops.
func (c *Cleaner) csiCursor(s *csiSeq) {
	n := s.param(0, 1)
	switch s.final {
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
	case 'H', 'f': // CUP, HVP
		c.moveAbs(s.param(1, 1)-1, n-1)
	case 'd': // VPA
		c.moveAbs(c.cx, n-1)
	case 'I': // CHT
		c.tab(n)
	case 'Z': // CBT
		c.backTab(n)
	case 'g': // TBC
		switch s.param(0, 0) {
		case 0:
			c.tabs[c.cx] = false
		case 3:
			clear(c.tabs)
		}
	case 's': // SCOSC; with parameters it is DECSLRM (left/right margins), ignored
		if s.np == 0 && s.params[0] == 0 {
			c.saveCursor()
		}
	case 'u': // SCORC
		c.restoreCursor()
	}
}

// csiEdit executes erasing, inserting and deleting, scrolling and REP.
func (c *Cleaner) csiEdit(dst []byte, s *csiSeq) []byte {
	n := s.param(0, 1)
	switch s.final {
	case 'K': // EL
		c.eraseInLine(s.param(0, 0))
	case 'J': // ED
		dst = c.eraseInDisplay(dst, s.param(0, 0))
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
		if s.np == 0 { // with more parameters it is mouse tracking
			c.scrollDown(c.top, n)
		}
	case 'r': // DECSTBM
		c.setRegion(s.param(0, 1)-1, s.param(1, c.rows)-1)
	case 'b': // REP
		dst = c.repeat(dst, n)
	}
	return dst
}

// csiMode executes SM and RM (ANSI and DEC private modes) and DECSTR.
func (c *Cleaner) csiMode(dst []byte, s *csiSeq) []byte {
	on := s.final == 'h'
	switch {
	case s.ib == '!': // DECSTR
		c.softReset()
	case s.marker == '?':
		for i := 0; i <= s.np; i++ {
			dst = c.setPrivate(dst, s.params[i], on)
		}
	default:
		for i := 0; i <= s.np; i++ {
			if s.params[i] == 4 { // IRM
				c.modes.insert = on
			}
		}
	}
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

// csiQuery returns the query a CSI sequence asks, if it is one the
// terminal answers (see reply.go).
func csiQuery(s *csiSeq) (query, bool) {
	p0 := s.params[0]
	switch s.cmd() {
	case 'n': // DSR
		switch p0 {
		case 5:
			return query{Kind: qStatus}, true
		case 6:
			return query{Kind: qCursor}, true
		}
	case cmd('?', 0, 'n'): // DECXCPR
		return query{Kind: qExtCursor}, p0 == 6
	case 'c': // DA1
		return query{Kind: qDA1}, p0 == 0
	case cmd('>', 0, 'c'): // DA2
		return query{Kind: qDA2}, p0 == 0
	case cmd('>', 0, 'q'): // XTVERSION
		return query{Kind: qVersion}, p0 == 0
	case cmd(0, '$', 'p'): // DECRQM
		return query{Kind: qMode, N: p0}, true
	case cmd('?', '$', 'p'): // DECRQM, DEC private mode
		return query{Kind: qMode, N: p0, Private: true}, true
	case cmd('?', 0, 'u'): // kitty keyboard flags
		return query{Kind: qKitty}, true
	}
	return query{}, false
}

// oscDispatch acts on a complete OSC, terminated by BEL or ST (term is the
// byte after ESC; ESC when another sequence ended it): only colour queries
// (OSC 10/11/12 ; ?) properly terminated have an effect, a reply. Titles,
// hyperlinks, clipboard writes and shell-integration marks leave no text.
func (c *Cleaner) oscDispatch(payload []byte, n int, term byte) {
	if term == esc || n != 4 || payload[0] != '1' || payload[2] != ';' || payload[3] != '?' || payload[1] < '0' || payload[1] > '2' {
		return
	}
	st := "\a"
	if term == '\\' {
		st = "\x1b\\"
	}
	c.reply(query{Kind: qColour, N: 10 + int(payload[1]-'0'), ST: st})
}
