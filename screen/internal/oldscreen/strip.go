package oldscreen

import "bytes"

// Stripper removes control strings — OSC, DCS, SOS, PM and APC, with their
// terminators — from a byte stream, streaming: a string split across writes
// is removed whole. It is what pipe-mode output goes through before the log,
// so that the log, the disk log, logs and attach never carry a sequence that
// sets an operator's clipboard (OSC 52) or window title, sends a hyperlink or
// asks the operator's terminal for a reply. Everything else, colours and
// other CSI sequences included, passes unchanged.
//
// A string longer than StringCap is given up on: the bytes after that point
// are text again, as in Cleaner, so a program that never ends a string
// cannot hide the rest of its output. The zero Stripper is ready to use; it
// is not safe for concurrent use.
type Stripper struct {
	st  stripState
	osc bool // the current string is an OSC, which BEL also ends
	len int  // bytes of the current string so far
}

type stripState uint8

const (
	stripText   stripState = iota
	stripEsc               // an ESC held back: its next byte decides
	stripString            // inside a control string, dropped
	stripStrEsc            // an ESC inside one: ST ends it
)

// Write appends p, without control strings, to dst.
func (s *Stripper) Write(dst, p []byte) []byte {
	for len(p) > 0 {
		switch s.st {
		case stripText:
			i := bytes.IndexByte(p, esc)
			if i < 0 {
				return append(dst, p...)
			}
			dst = append(dst, p[:i]...)
			p = p[i+1:]
			s.st = stripEsc
		case stripEsc:
			b := p[0]
			p = p[1:]
			switch b {
			case ']', 'P', 'X', '^', '_':
				s.st, s.osc, s.len = stripString, b == ']', 0
			case esc:
				dst = append(dst, esc) // the first ESC was not one of ours
			default:
				dst = append(dst, esc, b)
				s.st = stripText
			}
		case stripString, stripStrEsc:
			p = s.skip(p)
		}
	}
	return dst
}

// skip drops the bytes of p that belong to the current string and returns
// the rest.
func (s *Stripper) skip(p []byte) []byte {
	for i, b := range p {
		if s.st == stripStrEsc {
			if b == '\\' { // ST
				s.st = stripText
				return p[i+1:]
			}
			// An ESC that is not ST ends the string and starts a sequence.
			s.st = stripEsc
			return p[i:]
		}
		switch {
		case b == bel && s.osc, b == can, b == sub: // BEL ends an OSC (xterm); CAN and SUB cancel any
			s.st = stripText
			return p[i+1:]
		case b == esc:
			s.st = stripStrEsc
			continue
		}
		if s.len++; s.len > StringCap {
			s.st = stripText
			return p[i:]
		}
	}
	return nil
}

// Flush appends what is held back at the end of the stream: a lone ESC. An
// unfinished control string is dropped.
func (s *Stripper) Flush(dst []byte) []byte {
	if s.st == stripEsc {
		dst = append(dst, esc)
	}
	s.st = stripText
	return dst
}
