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
	return invalidBytes(b)*binaryInvalidShare > len(b)
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

// Judge decides, chunk by chunk, whether a stream's output is binary. A
// chunk is binary when IsBinary says so; once a stream is binary, a chunk
// that follows stays binary unless it reads as text on its own: valid
// UTF-8 without NUL or control characters other than those text uses
// (tab, newline, carriage return, escape, bell, backspace, form feed),
// and either a whole line (ending in a newline) or at least
// judgeTextRun bytes long. Short pieces of a binary file (a run of
// printable bytes between two reads) then stay with it, while the text a
// program prints after its binary output ("done\n", a colored prompt line)
// is text again.
//
// The zero Judge starts in text. Not safe for concurrent use.
type Judge struct {
	binary bool
}

// judgeTextRun is how long a chunk after binary output must be to be text
// without ending a line.
const judgeTextRun = 512

// Binary judges chunk b. An empty chunk changes nothing and is not binary.
func (j *Judge) Binary(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	switch {
	case IsBinary(b):
		j.binary = true
	case j.binary:
		j.binary = !textAfterBinary(b)
	}
	return j.binary
}

// InBinary reports whether the last chunk judged was binary.
func (j *Judge) InBinary() bool { return j.binary }

// textAfterBinary reports whether b reads as text on its own (see Judge).
func textAfterBinary(b []byte) bool {
	if len(b) < judgeTextRun && b[len(b)-1] != '\n' {
		return false
	}
	for _, c := range b {
		if c < 0x20 || c == 0x7f {
			switch c {
			case '\t', '\n', '\r', 0x1b, '\a', '\b', '\f':
			default:
				return false
			}
		}
	}
	return invalidBytes(b) == 0
}
