package tools

import (
	"bytes"
	"unicode/utf8"

	"github.com/yieldshell/yieldshell/internal/session"
)

// answerQuery is the query behind an answer's output: since (nil: the
// newest output), within max_output_bytes. Output over the cap is cut into
// its head and its tail with what is left out between them said
// (omitted), except when since and max_output_bytes are both given: that
// is paging, as in mcp-yieldshell 0.4.0, where the answer is the head only
// and next_seq is the first byte not returned.
func (h *handlers) answerQuery(since *int64, maxBytes *int, streams session.Stream) session.Query {
	return session.Query{Since: since, MaxBytes: h.outputCap(maxBytes), Streams: streams,
		HeadTail: since == nil || maxBytes == nil}
}

// Omitted says what an answer's output leaves out between its head and its
// tail: positions from_seq (the first byte left out) to to_seq (the first
// byte after), as next_seq counts; read since_seq from_seq returns it.
type Omitted struct {
	FromSeq int64 `json:"from_seq" jsonschema:"position of the first byte left out: read since_seq from_seq returns it"`
	ToSeq   int64 `json:"to_seq" jsonschema:"position after the last byte left out (exclusive, like next_seq)"`
	Bytes   int64 `json:"bytes" jsonschema:"how many bytes were left out"`
	Lines   int64 `json:"lines" jsonschema:"how many line ends were left out"`
	Evicted int64 `json:"evicted,omitempty" jsonschema:"how many of those bytes are no longer stored (the ring dropped them): read cannot return them"`
}

// omitFields are what exec, read, wait and write answers say about output
// they leave out or cannot show as text.
type omitFields struct {
	Omitted *Omitted `json:"omitted,omitempty" jsonschema:"output left out between the head and the tail of stdout (the answer's cap): read since_seq from_seq returns it, as far as it is still stored"`
	Binary  bool     `json:"binary,omitempty" jsonschema:"the output is binary (NUL bytes or mostly invalid UTF-8): stdout is left empty instead of showing replacement characters; bytes says how much there is; the log keeps it"`
	Bytes   *int64   `json:"bytes,omitempty" jsonschema:"with binary: how many bytes of output the answer covers"`
}

// answerText turns an answer's output into its text fields: binary output
// is not shown (binary, bytes), and omitted describes a head-and-tail cut.
func answerText(o session.Output) (stdout, stderr string, f omitFields) {
	if om := o.Omitted; om != nil && om.Bytes > 0 {
		f.Omitted = &Omitted{FromSeq: om.From, ToSeq: om.To, Bytes: om.Bytes, Lines: om.Lines, Evicted: om.Evicted}
	}
	if isBinary(o.Stdout) || isBinary(o.Stderr) {
		f.Binary = true
		f.Bytes = new(int64(len(o.Stdout) + len(o.Stderr)))
		return "", "", f
	}
	return text(o.Stdout), text(o.Stderr), f
}

// Binary output: a NUL byte, or at least binaryMinLen bytes of which more
// than one in binaryInvalidShare is not UTF-8. A few stray bytes in text
// (a Latin-1 name) stay text, shown with U+FFFD.
const (
	binaryMinLen       = 64
	binaryInvalidShare = 4
)

// isBinary reports whether b is binary rather than text.
func isBinary(b []byte) bool {
	if bytes.IndexByte(b, 0) >= 0 {
		return true
	}
	if len(b) < binaryMinLen || utf8.Valid(b) {
		return false
	}
	invalid := 0
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			invalid++
		}
		i += n
	}
	return invalid*binaryInvalidShare > len(b)
}
