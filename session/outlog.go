package session

import (
	"unicode/utf8"
)

// Stream names one output stream of a process.
type Stream uint8

const (
	Stdout Stream = 1 << iota
	Stderr
	Both = Stdout | Stderr
)

// chunk is a run of bytes of one stream starting at log position pos.
type chunk struct {
	pos    int64
	stream Stream
	data   []byte
}

// outputLog is a byte-capped log of a process's output. Positions count bytes
// appended over the process's life; both streams share one position space, so
// a position is a cursor into the merged output. Old bytes are evicted from
// the front once more than capacity are retained.
//
// Not safe for concurrent use: the owning Process locks around it.
type outputLog struct {
	capacity int
	chunks   []chunk // in position order; chunks[0] may have been trimmed
	retained int     // bytes held in chunks
	start    int64   // position of the first retained byte
	end      int64   // position the next byte will get
	total    [2]int64
}

func newOutputLog(capacity int) *outputLog {
	return &outputLog{capacity: capacity}
}

func streamIndex(s Stream) int {
	if s == Stderr {
		return 1
	}
	return 0
}

// append adds b to the log as output of stream s.
func (l *outputLog) append(s Stream, b []byte) {
	if len(b) == 0 {
		return
	}
	l.total[streamIndex(s)] += int64(len(b))
	if n := len(l.chunks); n > 0 && l.chunks[n-1].stream == s && len(l.chunks[n-1].data) < 64<<10 {
		l.chunks[n-1].data = append(l.chunks[n-1].data, b...)
	} else {
		data := make([]byte, len(b), max(len(b), 4<<10))
		copy(data, b)
		l.chunks = append(l.chunks, chunk{pos: l.end, stream: s, data: data})
	}
	l.end += int64(len(b))
	l.retained += len(b)
	l.evict()
}

// evict drops bytes from the front until at most capacity are retained. A
// partly dropped chunk is trimmed forward to a character boundary so that no
// reader ever starts inside a UTF-8 sequence.
func (l *outputLog) evict() {
	drop := 0
	for l.retained > l.capacity && drop < len(l.chunks) {
		c := &l.chunks[drop]
		excess := l.retained - l.capacity
		if excess >= len(c.data) {
			l.retained -= len(c.data)
			drop++
			continue
		}
		cut := excess
		for cut < len(c.data) && !utf8.RuneStart(c.data[cut]) {
			cut++
		}
		// Copy so the dropped prefix can be collected.
		c.data = append([]byte(nil), c.data[cut:]...)
		c.pos += int64(cut)
		l.retained -= cut
	}
	if drop > 0 {
		l.chunks = append(l.chunks[:0], l.chunks[drop:]...)
	}
	if len(l.chunks) > 0 {
		l.start = l.chunks[0].pos
	} else {
		l.start = l.end
	}
}

// readResult is a slice of the log as one response carries it.
type readResult struct {
	stdout, stderr []byte
	start          int64 // position of the first byte considered
	next           int64 // position of the first byte not returned
	evicted        bool  // bytes the reader asked for were evicted
	capped         bool  // the byte budget cut the answer; more from next
}

// readFrom returns the bytes of the selected streams from position from on,
// at most max bytes in all. A cut lands on a character boundary (a single
// character longer than max is returned whole so a reader always advances),
// and next is the first position not returned, so an incremental reader that
// passes next back loses nothing still retained.
func (l *outputLog) readFrom(from int64, max int, streams Stream) readResult {
	r := readResult{start: from, next: l.end}
	if from < l.start {
		r.evicted = true
		from = l.start
		r.start = from
	}
	if from > l.end {
		from = l.end
		r.start = from
	}
	budget := max
	for _, c := range l.chunks {
		cend := c.pos + int64(len(c.data))
		if cend <= from || c.stream&streams == 0 {
			continue
		}
		data := c.data
		pos := c.pos
		if pos < from {
			data = data[from-pos:]
			pos = from
		}
		if len(data) > budget {
			cut := cutPoint(data, budget, budget == max)
			r.appendTo(c.stream, data[:cut])
			r.next = pos + int64(cut)
			r.capped = true
			return r
		}
		r.appendTo(c.stream, data)
		budget -= len(data)
	}
	return r
}

// readTail returns the newest bytes of the selected streams, at most max,
// with next at the end of the log. It serves answers that carry no cursor:
// what matters then is the latest output, as with a terminal's last screen.
func (l *outputLog) readTail(max int, streams Stream) readResult {
	// Walk back to find where the last max selected bytes begin.
	from := l.end
	budget := max
	for i := len(l.chunks) - 1; i >= 0; i-- {
		c := l.chunks[i]
		if c.stream&streams == 0 {
			continue
		}
		if len(c.data) <= budget {
			budget -= len(c.data)
			from = c.pos
			continue
		}
		skip := len(c.data) - budget
		for skip < len(c.data) && !utf8.RuneStart(c.data[skip]) {
			skip++
		}
		from = c.pos + int64(skip)
		break
	}
	r := l.readFrom(from, max, streams)
	// Anything before from that belongs to the selected streams was left out.
	r.capped = false
	r.evicted = l.start > 0
	for _, c := range l.chunks {
		if c.pos >= from {
			break
		}
		if c.stream&streams != 0 {
			r.capped = true
			break
		}
	}
	return r
}

func (r *readResult) appendTo(s Stream, b []byte) {
	if s == Stderr {
		r.stderr = append(r.stderr, b...)
	} else {
		r.stdout = append(r.stdout, b...)
	}
}

// cutPoint returns how many bytes of data fit in budget without splitting a
// character. When first is true and not even one character fits, the first
// character is returned whole so that the reader makes progress.
func cutPoint(data []byte, budget int, first bool) int {
	cut := budget
	for cut > 0 && !utf8.RuneStart(data[cut]) {
		cut--
	}
	if cut == 0 && first && len(data) > 0 {
		_, size := utf8.DecodeRune(data)
		return size
	}
	return cut
}
