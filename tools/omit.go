package tools

import (
	"github.com/yieldshell/yieldshell/internal/outlog"
	"github.com/yieldshell/yieldshell/internal/session"
	"github.com/yieldshell/yieldshell/internal/wire"
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

// maxBinaryParts is how many binary parts an answer lists.
const maxBinaryParts = 16

// answerText turns an answer's output into its text fields: binary output
// is not shown (binary, bytes, binary_parts), and omitted describes a
// head-and-tail cut. The log stores binary output apart from text
// (session), so text around it is shown; text that is binary as a whole
// (many short chunks, each too short to tell) is not shown either.
func answerText(o session.Output) (stdout, stderr string, f wire.OmitFields) {
	if om := o.Omitted; om != nil && om.Bytes > 0 {
		f.Omitted = &wire.Omitted{FromSeq: om.From, ToSeq: om.To, Bytes: om.Bytes, Lines: om.Lines, Evicted: om.Evicted}
	}
	binaryParts(&f, o.Binary)
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
func binaryParts(f *wire.OmitFields, parts []outlog.Part) {
	var n int64
	f.BinaryParts = nil
	for i, p := range parts {
		n += p.To - p.From
		if i < maxBinaryParts {
			f.BinaryParts = append(f.BinaryParts, wire.BinaryPart{FromSeq: p.From, ToSeq: p.To, Stream: streamName(p.Stream)})
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
