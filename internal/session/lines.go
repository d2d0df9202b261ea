package session

import "bytes"

// maxLine bounds the unfinished line a lineScan keeps: a longer line is
// looked at in pieces of this size.
const maxLine = 64 << 10

// lineScan walks a process's log line by line, incrementally: each call to
// scan looks only at bytes appended since the previous one. Lines are kept
// per stream, so that in pipe mode stdout and stderr lines are never mixed,
// and a line split across chunks (or reads) is seen whole.
type lineScan struct {
	pos     int64     // the next log position to look at
	partial [2][]byte // per stream, the line begun but not yet ended
	// needle, when set, lets scan skip chunks in which it cannot occur, so
	// the lines of those chunks are not passed to line (others without it
	// may be). A busy process's output is then looked at about as fast as
	// memory is read.
	needle []byte
	// unfinished: after the complete lines, scan also passes the line
	// still being written, of each stream that received bytes.
	unfinished bool
}

// scan feeds the log's new bytes to line, one complete line (without its
// newline) at a time, and then, with unfinished, the unfinished line of
// each stream that received bytes. It stops early when line returns true
// and reports whether it did. Called with the owner's lock held.
func (s *lineScan) scan(l *outputLog, line func(b []byte) bool) bool {
	if s.pos < l.start { // evicted before it was looked at
		s.pos = l.start
		s.partial = [2][]byte{}
	}
	var touched [2]bool
	for c := range l.chunks(s.pos) {
		end := c.pos + int64(len(c.data))
		if end <= s.pos {
			continue
		}
		data := c.data[s.pos-c.pos:]
		s.pos = end
		i := streamIndex(c.stream)
		touched[i] = true
		if s.needle != nil && !mayHold(s.partial[i], data, s.needle) {
			if nl := bytes.LastIndexByte(data, '\n'); nl >= 0 {
				s.partial[i] = s.partial[i][:0]
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
			if len(s.partial[i]) > 0 {
				b = append(s.partial[i], b...)
				s.partial[i] = s.partial[i][:0]
			}
			data = data[nl+1:]
			if line(b) {
				s.pos -= int64(len(data)) // the next scan starts after this line
				return true
			}
		}
	}
	if s.unfinished {
		for i, t := range touched {
			if t && len(s.partial[i]) > 0 && line(s.partial[i]) {
				return true
			}
		}
	}
	return false
}

// extend adds b to stream i's unfinished line and keeps only its last
// maxLine bytes, without ever holding more than that: a line that never
// ends costs maxLine, however long it grows.
func (s *lineScan) extend(i int, b []byte) {
	if len(b) >= maxLine {
		s.partial[i] = append(s.partial[i][:0], b[len(b)-maxLine:]...)
		return
	}
	if over := len(s.partial[i]) + len(b) - maxLine; over > 0 {
		n := copy(s.partial[i], s.partial[i][over:])
		s.partial[i] = s.partial[i][:n]
	}
	s.partial[i] = append(s.partial[i], b...)
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
