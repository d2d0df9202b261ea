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
}

// scan feeds the log's new bytes to line, one complete line (without its
// newline) at a time, and then, if partial is true, the unfinished line of
// each stream that received bytes. It stops early when line returns true
// and reports whether it did. Called with the owner's lock held.
func (s *lineScan) scan(l *outputLog, partial bool, line func(b []byte) bool) bool {
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
		for len(data) > 0 {
			nl := bytes.IndexByte(data, '\n')
			if nl < 0 {
				s.partial[i] = append(s.partial[i], data...)
				if n := len(s.partial[i]); n > maxLine {
					s.partial[i] = append(s.partial[i][:0], s.partial[i][n-maxLine:]...)
				}
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
	if partial {
		for i, t := range touched {
			if t && len(s.partial[i]) > 0 && line(s.partial[i]) {
				return true
			}
		}
	}
	return false
}
