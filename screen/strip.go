package screen

import (
	"encoding/binary"
	"unicode/utf8"
)

// Stripper removes control strings — OSC, DCS, SOS, PM and APC, with their
// terminators — and C1 controls from a byte stream, streaming: a string
// split across writes is removed whole. It is what pipe-mode output goes
// through before the log, so that the log, the disk log, logs and attach
// never carry a sequence that sets an operator's clipboard (OSC 52) or
// window title, sends a hyperlink or asks the operator's terminal for a
// reply. Everything else, colours and other 7-bit CSI sequences included,
// passes unchanged.
//
// C1 controls come in two forms: a byte 0x80–0x9F that is not part of a
// valid UTF-8 sequence (a terminal in 8-bit mode reads 0x9D as OSC) and
// U+0080–U+009F encoded in UTF-8 (C2 80..C2 9F, which xterm in UTF-8 mode
// also obeys). Both are treated alike: the string introducers (DCS 0x90,
// SOS 0x98, OSC 0x9D, PM 0x9E, APC 0x9F) start a string as their 7-bit
// forms do, ST (0x9C) ends one, and every other C1 control (CSI 0x9B
// among them) is dropped. A byte 0x80–0xBF that continues a valid UTF-8
// character is text; to tell, an unfinished character at the end of a
// write is held back until the next.
//
// A string longer than StringCap is given up on: the bytes after that point
// are text again, as in Cleaner, so a program that never ends a string
// cannot hide the rest of its output. The zero Stripper is ready to use; it
// is not safe for concurrent use.
type Stripper struct {
	st  stripState
	osc bool // the current string is an OSC, which BEL also ends
	len int  // bytes of the current string so far

	held  [utf8.UTFMax]byte // an unfinished UTF-8 character at the end of the last write
	nheld int

	invalid int // bytes of text that were not part of a UTF-8 character, ever
}

// Invalid returns how many bytes of text (outside control strings) that
// are not part of a UTF-8 character s has seen so far: the difference
// across a Write tells how much of its input was not UTF-8 without a pass
// of its own.
func (s *Stripper) Invalid() int { return s.invalid }

type stripState uint8

const (
	stripText   stripState = iota
	stripEsc               // an ESC held back: its next byte decides
	stripString            // inside a control string, dropped
	stripStrEsc            // an ESC inside one: ST ends it
)

// C1 controls the Stripper acts on (see Stripper).
const (
	c1DCS = 0x90
	c1SOS = 0x98
	c1ST  = 0x9c
	c1OSC = 0x9d
	c1PM  = 0x9e
	c1APC = 0x9f
)

// Write appends p, without control strings and C1 controls, to dst.
func (s *Stripper) Write(dst, p []byte) []byte {
	// Complete the character held back from the last write with the head
	// of this one, and decide what it was.
	for s.nheld > 0 {
		if len(p) == 0 {
			return dst
		}
		var buf [2 * utf8.UTFMax]byte
		n := copy(buf[:], s.held[:s.nheld])
		k := copy(buf[n:n+utf8.UTFMax-s.nheld], p)
		p = p[k:]
		s.nheld = 0
		// The scan may hold back a new unfinished tail of buf.
		dst = s.write(dst, buf[:n+k])
	}
	return s.write(dst, p)
}

func (s *Stripper) write(dst, p []byte) []byte {
	for len(p) > 0 {
		var held bool
		switch s.st {
		case stripText:
			dst, p, held = s.text(dst, p)
		case stripEsc:
			dst, p, held = s.afterEsc(dst, p)
		case stripString, stripStrEsc:
			p = s.skip(p)
		}
		if held {
			return dst
		}
	}
	return dst
}

// text passes plain text on and takes the next escape or C1 control; held
// is true when p ends in the middle of a character, which s now holds.
func (s *Stripper) text(dst, p []byte) (out, rest []byte, held bool) {
	i := textEnd(p)
	dst = append(dst, p[:i]...)
	p = p[i:]
	if len(p) == 0 {
		return dst, p, false
	}
	if p[0] == esc {
		s.st = stripEsc
		return dst, p[1:], false
	}
	n, c1 := c1At(p)
	if n == 0 {
		s.hold(p)
		return dst, nil, true
	}
	if n == 1 { // every character from 0x80 up takes two bytes or more
		s.invalid++
	}
	switch c1 {
	case 0:
		dst = append(dst, p[:n]...)
	case c1OSC, c1DCS, c1SOS, c1PM, c1APC:
		s.st, s.osc, s.len = stripString, c1 == c1OSC, 0
	}
	return dst, p[n:], false
}

// afterEsc takes the byte after an ESC. An ESC goes out only with the byte
// that follows it, so nothing dropped after it can join it to what comes
// next (ESC, a dropped C1 control, "]" must not become ESC ]).
func (s *Stripper) afterEsc(dst, p []byte) (out, rest []byte, held bool) {
	b := p[0]
	switch {
	case b >= 0x80:
		n, c1 := c1At(p)
		if n == 0 {
			s.hold(p)
			return dst, nil, true
		}
		if c1 == 0 {
			dst = append(dst, esc) // then the character, as text
		}
		// A C1 control aborts the sequence, as in a terminal: the ESC
		// goes with it.
		s.st = stripText
		return dst, p, false
	case b == ']', b == 'P', b == 'X', b == '^', b == '_':
		s.st, s.osc, s.len = stripString, b == ']', 0
	case b == esc:
		// The second ESC aborts the first, as in a terminal: the first
		// goes, the second waits for its next byte.
	default:
		dst = append(dst, esc, b)
		s.st = stripText
	}
	return dst, p[1:], false
}

// textEnd is the index of the first byte of p that is not plain text:
// ESC or a byte of 0x80 and above. Eight bytes at a time while there is
// none: most output is plain text, and every byte of it passes here.
func textEnd(p []byte) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(p); i += 8 {
		x := binary.LittleEndian.Uint64(p[i:])
		e := x ^ (esc * ones) // a zero byte where p has an ESC
		if (x|(e-ones)&^e)&highs != 0 {
			break // one of these eight: find it below
		}
	}
	for ; i < len(p); i++ {
		if b := p[i]; b == esc || b >= 0x80 {
			return i
		}
	}
	return len(p)
}

// c1At reads the character at the start of p, whose first byte is 0x80 or
// above: its length, and the C1 control it is, or 0 when it is none (a
// valid character, or an invalid byte above 0x9F). n is 0 when p is an
// unfinished character that more bytes could complete.
func c1At(p []byte) (n int, c1 byte) {
	if !utf8.FullRune(p) {
		return 0, 0
	}
	r, size := utf8.DecodeRune(p)
	switch {
	case r == utf8.RuneError && size == 1:
		if p[0] <= 0x9f {
			return 1, p[0]
		}
		return 1, 0
	case r >= 0x80 && r <= 0x9f:
		return size, byte(r)
	}
	return size, 0
}

// hold keeps p, an unfinished UTF-8 character, for the next write.
func (s *Stripper) hold(p []byte) {
	s.nheld = copy(s.held[:], p)
}

// skip drops the bytes of p that belong to the current string and returns
// the rest.
func (s *Stripper) skip(p []byte) []byte {
	for i := 0; i < len(p); {
		b := p[i]
		if s.st == stripStrEsc {
			if b == '\\' { // ST
				s.st = stripText
				return p[i+1:]
			}
			// An ESC that is not ST ends the string and starts a sequence.
			s.st = stripEsc
			return p[i:]
		}
		n := 1
		switch {
		case b == bel && s.osc, b == can, b == sub: // BEL ends an OSC (xterm); CAN and SUB cancel any
			s.st = stripText
			return p[i+1:]
		case b == esc:
			s.st = stripStrEsc
			i++
			continue
		case b >= 0x80:
			var c1 byte
			if n, c1 = c1At(p[i:]); n == 0 {
				s.hold(p[i:])
				return nil
			}
			if c1 == c1ST {
				s.st = stripText
				return p[i+n:]
			}
		}
		if s.len += n; s.len > StringCap {
			s.st = stripText
			return p[i:]
		}
		i += n
	}
	return nil
}

// Flush appends what is held back at the end of the stream: a lone ESC,
// and the bytes of an unfinished character in text (as invalid bytes: the
// C1 range among them dropped). An unfinished control string is dropped.
func (s *Stripper) Flush(dst []byte) []byte {
	if s.st == stripEsc {
		dst = append(dst, esc)
		s.st = stripText
	}
	if s.st == stripText {
		for _, b := range s.held[:s.nheld] {
			if b < 0x80 || b > 0x9f {
				dst = append(dst, b)
			}
		}
	}
	s.nheld = 0
	s.st = stripText
	return dst
}

// TakeHeld appends to dst, unchanged, the bytes s holds back (an ESC, the
// start of a character) and starts over in text, as at the start of a
// stream; a control string it was in is dropped. Binary output bypasses
// the Stripper: what it held is the start of that output, and must not be
// written out as text that the text after the binary could complete
// (ESC, then "]52;..." after it).
func (s *Stripper) TakeHeld(dst []byte) []byte {
	if s.st == stripEsc {
		dst = append(dst, esc)
	}
	if s.st == stripEsc || s.st == stripText {
		dst = append(dst, s.held[:s.nheld]...)
	}
	s.nheld = 0
	s.st = stripText
	return dst
}
