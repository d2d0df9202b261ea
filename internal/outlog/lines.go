package outlog

import "bytes"

// MaxLine bounds the unfinished line a lineScan keeps: a longer line is
// looked at in pieces of this size.
const MaxLine = 64 << 10

// LineScan walks a process's log line by line, incrementally: each call to
// scan looks only at bytes appended since the previous one. Binary parts
// are not text: they are skipped, and end the line they interrupt. Lines are kept
// per stream, so that in pipe mode stdout and stderr lines are never mixed,
// and a line split across chunks (or reads) is seen whole.
type LineScan struct {
	Pos     int64     // the next log position to look at
	Partial [2][]byte // per stream, the line begun but not yet ended
	// Needle, when set, lets scan skip chunks in which it cannot occur, so
	// the lines of those chunks are not passed to line (others without it
	// may be). A busy process's output is then looked at about as fast as
	// memory is read.
	Needle []byte
	// Unfinished: after the complete lines, scan also passes the line
	// still being written, of each stream that received bytes.
	Unfinished bool
}

// Scan feeds the log's new bytes to line, one complete line (without its
// newline) at a time, and then, with unfinished, the unfinished line of
// each stream that received bytes. It stops early when line returns true
// and reports whether it did. Called with the owner's lock held.
func (s *LineScan) Scan(l *Log, line func(b []byte) bool) bool {
	if s.Pos < l.start { // evicted before it was looked at
		s.Pos = l.start
		s.Partial = [2][]byte{}
	}
	var touched [2]bool
	for c := range l.Chunks(s.Pos) {
		end := c.Pos + int64(len(c.Data))
		if end <= s.Pos {
			continue
		}
		data := c.Data[s.Pos-c.Pos:]
		s.Pos = end
		i := streamIndex(c.Stream)
		if c.Binary { // not text: it ends the line before it, and holds none
			s.Partial[i] = s.Partial[i][:0]
			continue
		}
		touched[i] = true
		if s.Needle != nil && !mayHold(s.Partial[i], data, s.Needle) {
			if nl := bytes.LastIndexByte(data, '\n'); nl >= 0 {
				s.Partial[i] = s.Partial[i][:0]
				data = data[nl+1:]
			}
			s.extend(i, data)
			continue
		}
		for len(data) > 0 {
			nl := bytes.IndexByte(data, '\n')
			if nl < 0 {
				s.extend(i, data)
				break
			}
			b := data[:nl]
			if len(s.Partial[i]) > 0 {
				b = append(s.Partial[i], b...)
				s.Partial[i] = s.Partial[i][:0]
			}
			data = data[nl+1:]
			if line(b) {
				s.Pos -= int64(len(data)) // the next scan starts after this line
				return true
			}
		}
	}
	if s.Unfinished {
		for i, t := range touched {
			if t && len(s.Partial[i]) > 0 && line(s.Partial[i]) {
				return true
			}
		}
	}
	return false
}

// extend adds b to stream i's unfinished line and keeps only its last
// maxLine bytes, without ever holding more than that: a line that never
// ends costs maxLine, however long it grows.
func (s *LineScan) extend(i int, b []byte) {
	if len(b) >= MaxLine {
		s.Partial[i] = append(s.Partial[i][:0], b[len(b)-MaxLine:]...)
		return
	}
	if over := len(s.Partial[i]) + len(b) - MaxLine; over > 0 {
		n := copy(s.Partial[i], s.Partial[i][over:])
		s.Partial[i] = s.Partial[i][:n]
	}
	s.Partial[i] = append(s.Partial[i], b...)
}

// mayHold reports whether needle can occur in a line made of the
// unfinished line partial and the new bytes data: within either, or across
// the join.
func mayHold(partial, data, needle []byte) bool {
	if bytes.Contains(data, needle) || bytes.Contains(partial, needle) {
		return true
	}
	k := len(needle) - 1
	join := append(append([]byte(nil), partial[max(len(partial)-k, 0):]...), data[:min(k, len(data))]...)
	return bytes.Contains(join, needle)
}
