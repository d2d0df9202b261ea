package prompt

import (
	"bytes"
	"strconv"
	"strings"
)

// Mark is one shell-integration mark: OSC 133 (FinalTerm, the common set)
// or OSC 633 (VS Code's superset).
//
//	A  prompt starts          B  prompt ends, input starts
//	C  command output starts  D[;code]  command finished
//	P;key=value  a property (133: k=i|s|r prompt kind; 633: Cwd, ...)
type Mark struct {
	Code int    // 133 or 633
	Kind byte   // 'A', 'B', 'C', 'D', 'P', 'E', ...
	Args string // what follows "<kind>;", e.g. the exit code of D
	// Pos is the offset, in the text Scanner.Write returned, at which the
	// mark stood.
	Pos int
}

// ExitCode returns the exit code a D mark carries. A D without one means
// no command ran (an empty line, Ctrl-C at the prompt).
func (m Mark) ExitCode() (int, bool) {
	if m.Kind != 'D' || m.Args == "" {
		return 0, false
	}
	s, _, _ := strings.Cut(m.Args, ";")
	code, err := strconv.Atoi(s)
	return code, err == nil
}

// Property returns the value of key in a P mark ("P;k=s" or "P;Cwd=/x").
func (m Mark) Property(key string) (string, bool) {
	if m.Kind != 'P' {
		return "", false
	}
	for kv := range strings.SplitSeq(m.Args, ";") {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			return v, true
		}
	}
	return "", false
}

// maxMark bounds the body of a mark; a longer "mark" is passed on as
// ordinary output (the terminal cleaner drops long OSC strings itself).
const maxMark = 4096

// Scanner removes shell-integration marks from a byte stream and reports
// them, whatever their terminator (BEL or ST) and however the stream is split
// into writes. Everything else passes through unchanged and in order; only
// an incomplete mark, or a prefix of one at the end of a write, is held back
// until the next write.
//
// Not safe for concurrent use.
type Scanner struct {
	held []byte // an incomplete mark or a prefix of one, starting with ESC
}

// Write appends the output of p without marks to dst and each mark found to
// marks, with Pos set to its offset in the returned dst.
func (s *Scanner) Write(dst, p []byte, marks []Mark) ([]byte, []Mark) {
	for len(p) > 0 {
		if len(s.held) == 0 {
			i := bytes.IndexByte(p, 0x1b)
			if i < 0 {
				return append(dst, p...), marks
			}
			dst = append(dst, p[:i]...)
			p = p[i:]
		}
		// Within a possible mark: take bytes until it is decided.
		n, verdict, m := s.feed(p)
		p = p[n:]
		switch verdict {
		case isMark:
			m.Pos = len(dst)
			marks = append(marks, m)
		case notMark:
			// Only its first byte can be an ESC: nothing held starts a mark.
			dst = append(dst, s.held...)
			s.held = s.held[:0]
		}
	}
	return dst, marks
}

type state uint8

const (
	undecided state = iota
	isMark
	notMark
)

// prefix133 starts a mark; feed also takes VS Code's "\x1b]633;", which
// differs only in its third byte.
var prefix133 = []byte("\x1b]133;")

// feed moves bytes of p into s.held until the held bytes are known to be a
// mark (returned, held cleared), not a mark (left in held for the caller to
// pass on), or p runs out. It returns how many bytes of p it used.
func (s *Scanner) feed(p []byte) (int, state, Mark) {
	for i, b := range p {
		h := len(s.held)
		switch {
		case h < len(prefix133):
			want := prefix133[h]
			if h == 2 && b == '6' {
				want = '6'
			}
			if b != want {
				return i, notMark, Mark{}
			}
			s.held = append(s.held, b)
		case b == 0x07:
			m := parseMark(s.held)
			s.held = s.held[:0]
			return i + 1, isMark, m
		case s.held[h-1] == 0x1b:
			m := parseMark(s.held[:h-1])
			s.held = s.held[:0]
			if b == '\\' {
				return i + 1, isMark, m
			}
			// ESC inside the string ends it, as terminals do, and starts a
			// new sequence: b is looked at again after that ESC.
			s.held = append(s.held, 0x1b)
			return i, isMark, m
		case h >= maxMark:
			return i, notMark, Mark{}
		default:
			s.held = append(s.held, b)
		}
	}
	return len(p), undecided, Mark{}
}

// parseMark reads "ESC ] 133 ; body".
func parseMark(held []byte) Mark {
	code := 133
	if held[2] == '6' {
		code = 633
	}
	body := held[len(prefix133):]
	m := Mark{Code: code}
	if len(body) > 0 {
		m.Kind = body[0]
	}
	if len(body) > 2 && body[1] == ';' {
		m.Args = string(body[2:])
	}
	return m
}

// Flush appends what is held back to dst: at the end of the stream an
// incomplete mark is output like any other text.
func (s *Scanner) Flush(dst []byte) []byte {
	dst = append(dst, s.held...)
	s.held = s.held[:0]
	return dst
}
