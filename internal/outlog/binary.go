package outlog

import (
	"bytes"
	"unicode/utf8"
)

// Binary output: a chunk with a NUL byte, or one of at least BinaryMinLen
// bytes of which more than one in binaryInvalidShare is not UTF-8. A few
// stray bytes in text (a Latin-1 name) stay text; escape sequences are
// text (they are valid UTF-8), however many there are.
const (
	BinaryMinLen       = 64
	binaryInvalidShare = 4
)

// IsBinary reports whether b, taken on its own, is binary rather than
// text. An unfinished character at the end of b is not counted as
// invalid: a chunk may end inside one.
func IsBinary(b []byte) bool {
	if bytes.IndexByte(b, 0) >= 0 {
		return true
	}
	if len(b) < BinaryMinLen || utf8.Valid(b) {
		return false
	}
	return MostlyInvalid(invalidBytes(b), len(b))
}

// PlainText reports whether b is text that no judgement calls binary,
// however it is cut at ASCII bytes: it has no NUL and is valid UTF-8 but
// for an unfinished character at its end. IsBinary is false for b and
// for each such piece of it, and a Judge in text cuts each whole.
func PlainText(b []byte) bool {
	if bytes.IndexByte(b, 0) >= 0 {
		return false
	}
	if utf8.Valid(b) {
		return true
	}
	for k := len(b) - 1; k >= max(0, len(b)-utf8.UTFMax+1); k-- {
		if utf8.RuneStart(b[k]) {
			return !utf8.FullRune(b[k:]) && utf8.Valid(b[:k])
		}
	}
	return false
}

// MostlyInvalid reports whether a chunk of n bytes of which invalid are
// not UTF-8, and no NUL, is binary (see IsBinary).
func MostlyInvalid(invalid, n int) bool {
	return n >= BinaryMinLen && invalid*binaryInvalidShare > n
}

// invalidBytes counts the bytes of b that are not part of a UTF-8
// character, but for an unfinished one at its end.
func invalidBytes(b []byte) int {
	invalid := 0
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			if !utf8.FullRune(b[i:]) { // the start of a character the next chunk ends
				break
			}
			invalid++
		}
		i += n
	}
	return invalid
}

// Judge decides, piece by piece, which of a stream's output is binary.
// Cut takes a chunk (one read of the stream) and returns its first piece:
// a whole chunk that is text on its own (IsBinary is false) while the
// stream is in text is one piece, the fast path every ordinary chunk
// takes. Otherwise the chunk is looked at line by line, so that text
// written next to binary output in one read (a line before it, "done"
// after it) stays text:
//
//   - while the stream is in text, a line is text if it is clean: valid
//     UTF-8 (an unfinished character at the end of the chunk aside),
//     without NUL, C1 controls or C0 controls other than those text uses
//     (tab, newline, carriage return, escape, bell, backspace, form feed);
//   - once it is binary, a line is text again only if it is clean, shows
//     something (a character that is not a control or a space) and either
//     ends (with a newline) or is at least judgeTextRun bytes long: short
//     pieces of a binary file (a run of printable bytes, or the line end a
//     read began with) stay with it.
//
// Consecutive lines with the same verdict form one piece.
//
// A chunk too short to tell on its own (under BinaryMinLen bytes) that is
// not plain text is judged with the newest text before it (the window,
// carried from chunk to chunk), as IsBinary would judge the two together:
// output written a few bytes at a time is binary once what it wrote is,
// though no one chunk of it says so. The zero Judge starts in text. Not
// safe for concurrent use.
type Judge struct {
	binary bool
	win    [BinaryMinLen]byte // the newest text judged, win[:nwin]
	nwin   int
}

// judgeTextRun is how long a clean line after binary output must be to be
// text without ending.
const judgeTextRun = 512

// Cut returns the length of b's first piece and whether it is binary; b
// is not empty. The judge is then in the state of that piece.
func (j *Judge) Cut(b []byte) (n int, binary bool) {
	if !j.binary && !IsBinary(b) && !j.Tips(b) {
		j.Seen(b)
		return len(b), false
	}
	defer func() {
		if binary {
			j.nwin = 0
		} else {
			j.Seen(b[:n])
		}
	}()
	for n < len(b) {
		line := b[n:]
		if i := bytes.IndexByte(line, '\n'); i >= 0 {
			line = line[:i+1]
		}
		bin := !clean(line) || j.binary && (line[len(line)-1] != '\n' && len(line) < judgeTextRun || !shows(line))
		if n > 0 && bin != j.binary {
			break
		}
		j.binary = bin
		n += len(line)
	}
	return n, j.binary
}

// Tips reports whether b, a chunk that is not plain text and too short to
// judge on its own, is binary judged together with the newest text before
// it (IsBinary over both). A caller that passes a chunk as text without
// Cut asks it first, and tells the Judge with Seen.
func (j *Judge) Tips(b []byte) bool {
	if j.binary || len(b) >= BinaryMinLen || PlainText(b) {
		return false
	}
	var both [2 * BinaryMinLen]byte
	n := copy(both[:], j.win[:j.nwin])
	n += copy(both[n:], b)
	return IsBinary(both[:n])
}

// Seen records b as text the stream passed, for Tips to judge the next
// chunks with; Cut records what it cuts itself.
func (j *Judge) Seen(b []byte) {
	if len(b) >= len(j.win) {
		j.nwin = copy(j.win[:], b[len(b)-len(j.win):])
		return
	}
	keep := min(j.nwin, len(j.win)-len(b))
	copy(j.win[:], j.win[j.nwin-keep:j.nwin])
	j.nwin = keep + copy(j.win[keep:], b)
}

// Binary judges all of b as one piece: whether Cut would return it
// whole as binary, or, if not, it is text. For tests and for callers
// that judge what they will not split.
func (j *Judge) Binary(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for len(b) > 0 {
		n, bin := j.Cut(b)
		if bin {
			return true
		}
		b = b[n:]
	}
	return false
}

// InBinary reports whether the last piece judged was binary.
func (j *Judge) InBinary() bool { return j.binary }

// clean reports whether line reads as text (see Judge).
func clean(line []byte) bool {
	for i := 0; i < len(line); {
		c := line[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				switch c {
				case '\t', '\n', '\r', 0x1b, '\a', '\b', '\f':
				default:
					return false
				}
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(line[i:])
		if r == utf8.RuneError && size <= 1 {
			return !utf8.FullRune(line[i:]) // the start of a character the next chunk ends
		}
		if r >= 0x80 && r <= 0x9f { // a C1 control
			return false
		}
		i += size
	}
	return true
}

// shows reports whether line has a character that is not a control or a
// space.
func shows(line []byte) bool {
	for _, c := range line {
		if c > ' ' && c != 0x7f {
			return true
		}
	}
	return false
}
