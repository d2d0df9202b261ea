package tools

import (
	"github.com/yieldshell/yieldshell/internal/outlog"
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
	Omitted     *Omitted     `json:"omitted,omitempty" jsonschema:"output left out between the head and the tail of stdout (the answer's cap): read since_seq from_seq returns it, as far as it is still stored"`
	Binary      bool         `json:"binary,omitempty" jsonschema:"the output holds binary (NUL bytes or mostly invalid UTF-8): its bytes are not in stdout or stderr, which keep the text around them; bytes says how many; the log keeps them exactly: read with encoding \"base64\" returns them"`
	Bytes       *int64       `json:"bytes,omitempty" jsonschema:"with binary: how many bytes of binary output the answer covers"`
	BinaryParts []BinaryPart `json:"binary_parts,omitempty" jsonschema:"with binary: where the binary output is (at most 16 parts listed)"`
}

// BinaryPart is a stretch of binary output: positions from_seq to to_seq
// (exclusive), as next_seq counts.
type BinaryPart struct {
	FromSeq int64  `json:"from_seq" jsonschema:"position of its first byte: read since_seq from_seq with encoding \"base64\" returns it"`
	ToSeq   int64  `json:"to_seq" jsonschema:"position after its last byte (exclusive, like next_seq)"`
	Stream  string `json:"stream" jsonschema:"stdout or stderr"`
}

// maxBinaryParts is how many binary parts an answer lists.
const maxBinaryParts = 16

// answerText turns an answer's output into its text fields: binary output
// is not shown (binary, bytes, binary_parts), and omitted describes a
// head-and-tail cut. The log stores binary output apart from text
// (session), so text around it is shown; text that is binary as a whole
// (many short chunks, each too short to tell) is not shown either.
func answerText(o session.Output) (stdout, stderr string, f omitFields) {
	if om := o.Omitted; om != nil && om.Bytes > 0 {
		f.Omitted = &Omitted{FromSeq: om.From, ToSeq: om.To, Bytes: om.Bytes, Lines: om.Lines, Evicted: om.Evicted}
	}
	f.binaryParts(o.Binary)
	if outlog.IsBinary(o.Stdout) || outlog.IsBinary(o.Stderr) {
		f.Binary = true
		f.Bytes = new(*f.Bytes + int64(len(o.Stdout)+len(o.Stderr)))
		return "", "", f
	}
	if len(o.Binary) == 0 {
		f.Bytes = nil
	}
	return text(o.Stdout), text(o.Stderr), f
}

// binaryParts sets binary, bytes (always) and binary_parts from the
// binary parts of an answer's output.
func (f *omitFields) binaryParts(parts []outlog.Part) {
	var n int64
	f.BinaryParts = nil
	for i, p := range parts {
		n += p.To - p.From
		if i < maxBinaryParts {
			f.BinaryParts = append(f.BinaryParts, BinaryPart{FromSeq: p.From, ToSeq: p.To, Stream: streamName(p.Stream)})
		}
	}
	f.Binary, f.Bytes = len(parts) > 0, new(n)
}

func streamName(s outlog.Stream) string {
	if s == outlog.Stderr {
		return "stderr"
	}
	return "stdout"
}
