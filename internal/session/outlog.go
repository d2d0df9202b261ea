package session

import (
	"iter"
	"sort"
	"unicode/utf8"
)

// Stream names one output stream of a process.
type Stream uint8

const (
	Stdout Stream = 1 << iota
	Stderr
	Both = Stdout | Stderr
)

// streamRun marks where output of one stream begins; it lasts until the next
// run's position (or the end of the log).
type streamRun struct {
	pos    int64
	stream Stream
}

// minRing is the smallest ring a log with output gets: most commands print
// little, and a finished process's log is kept until cleanup.
const minRing = 1 << 10

// outputLog is a byte-capped log of a process's output. Positions count bytes
// appended over the process's life; both streams share one position space, so
// a position is a cursor into the merged output. Old bytes are evicted from
// the front once more than capacity are retained.
//
// The bytes live in a ring that grows (doubling) up to capacity and is then
// reused in place, so a busy process's appends allocate nothing. The byte at
// position p is at buf[p%len(buf)]. Which stream each byte came from is kept
// as runs, one per change of stream (PTY mode has a single run; at worst
// there is one per retained byte).
//
// Not safe for concurrent use: the owning Process locks around it.
type outputLog struct {
	capacity int
	buf      []byte
	runs     []streamRun // in position order; runs[0].pos <= start
	start    int64       // position of the first retained byte
	end      int64       // position the next byte will get
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
	if len(b) == 0 || l.capacity <= 0 {
		return
	}
	l.total[streamIndex(s)] += int64(len(b))
	if n := len(l.runs); n == 0 || l.runs[n-1].stream != s {
		l.runs = append(l.runs, streamRun{pos: l.end, stream: s})
	}
	if need := l.end - l.start + int64(len(b)); need > int64(len(l.buf)) && len(l.buf) < l.capacity {
		l.grow(int(min(need, int64(l.capacity))))
	}
	pos := l.end
	l.end += int64(len(b))
	if over := len(b) - len(l.buf); over > 0 { // only the newest bytes fit
		pos += int64(over)
		b = b[over:]
	}
	for len(b) > 0 {
		i := int(pos % int64(len(l.buf)))
		n := copy(l.buf[i:], b)
		b = b[n:]
		pos += int64(n)
	}
	if l.end-l.start > int64(len(l.buf)) {
		l.evict(l.end - int64(len(l.buf)))
	}
}

// grow moves the retained bytes to a ring of at least need bytes.
func (l *outputLog) grow(need int) {
	size := min(max(need, 2*len(l.buf), minRing), l.capacity)
	old := l.buf
	l.buf = make([]byte, size)
	for p := l.start; p < l.end; {
		seg := segment(old, p, l.end)
		n := copy(l.buf[p%int64(size):], seg)
		p += int64(n)
	}
}

// evict drops the bytes before position to. The new first byte is moved
// forward to a character boundary so that no reader ever starts inside a
// UTF-8 sequence.
func (l *outputLog) evict(to int64) {
	for i := 0; i < utf8.UTFMax-1 && to < l.end && !utf8.RuneStart(l.at(to)); i++ {
		to++
	}
	l.start = to
	drop := 0
	for drop+1 < len(l.runs) && l.runs[drop+1].pos <= to {
		drop++
	}
	// Reslicing keeps appends amortised: the dropped front is released
	// when the slice next grows.
	l.runs = l.runs[drop:]
}

// at returns the byte at a retained position.
func (l *outputLog) at(p int64) byte {
	return l.buf[p%int64(len(l.buf))]
}

// segment returns the bytes of ring buf from position p on that are
// contiguous in buf, up to position to.
func segment(buf []byte, p, to int64) []byte {
	i := int(p % int64(len(buf)))
	return buf[i:min(len(buf), i+int(to-p))]
}

// copyTo appends the bytes in [from, to) to dst.
func (l *outputLog) copyTo(dst []byte, from, to int64) []byte {
	for from < to {
		seg := segment(l.buf, from, to)
		dst = append(dst, seg...)
		from += int64(len(seg))
	}
	return dst
}

// chunk is a run of retained bytes of one stream, contiguous in the ring,
// starting at log position pos.
type chunk struct {
	pos    int64
	stream Stream
	data   []byte
}

// chunks returns the retained bytes from position from on (or from the
// first retained byte, if from was evicted), in position order, as chunks of
// one stream each. The data points into the log: use it before the log
// changes.
func (l *outputLog) chunks(from int64) iter.Seq[chunk] {
	return func(yield func(chunk) bool) {
		from := max(from, l.start)
		for i := l.runAt(from); i < len(l.runs); i++ {
			rs, re := l.runBounds(i)
			for p := max(rs, from); p < re; {
				seg := segment(l.buf, p, re)
				if !yield(chunk{pos: p, stream: l.runs[i].stream, data: seg}) {
					return
				}
				p += int64(len(seg))
			}
		}
	}
}

// runAt returns the index of the run holding position p: the last one that
// begins at or before it.
func (l *outputLog) runAt(p int64) int {
	return max(sort.Search(len(l.runs), func(i int) bool { return l.runs[i].pos > p })-1, 0)
}

// runBounds returns the retained part [from, to) of run i.
func (l *outputLog) runBounds(i int) (from, to int64) {
	from, to = max(l.runs[i].pos, l.start), l.end
	if i+1 < len(l.runs) {
		to = l.runs[i+1].pos
	}
	return from, to
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
// at most limit bytes in all. A cut lands on a character boundary (a single
// character longer than limit is returned whole so a reader always advances),
// and next is the first position not returned, so an incremental reader that
// passes next back loses nothing still retained.
func (l *outputLog) readFrom(from int64, limit int, streams Stream) readResult {
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
	budget := limit
	for i := l.runAt(from); i < len(l.runs); i++ {
		rs, re := l.runBounds(i)
		rs = max(rs, from)
		s := l.runs[i].stream
		if re <= rs || s&streams == 0 {
			continue
		}
		if re-rs > int64(budget) {
			cut := l.cutPoint(rs, re, budget, budget == limit)
			r.appendTo(s, l, rs, rs+int64(cut))
			r.next = rs + int64(cut)
			r.capped = true
			return r
		}
		r.appendTo(s, l, rs, re)
		budget -= int(re - rs)
	}
	return r
}

// readTail returns the newest bytes of the selected streams, at most limit,
// with next at the end of the log. It serves answers that carry no cursor:
// what matters then is the latest output, as with a terminal's last screen.
func (l *outputLog) readTail(limit int, streams Stream) readResult {
	// Walk back to find where the last limit selected bytes begin.
	from := l.end
	budget := int64(limit)
	for i := len(l.runs) - 1; i >= 0; i-- {
		rs, re := l.runBounds(i)
		if re <= rs || l.runs[i].stream&streams == 0 {
			continue
		}
		if re-rs <= budget {
			budget -= re - rs
			from = rs
			continue
		}
		from = re - budget
		for from < re && !utf8.RuneStart(l.at(from)) {
			from++
		}
		break
	}
	r := l.readFrom(from, limit, streams)
	// Anything before from that belongs to the selected streams was left out.
	r.capped = false
	r.evicted = l.start > 0
	for i := range l.runs {
		rs, re := l.runBounds(i)
		if rs >= from {
			break
		}
		if re > rs && l.runs[i].stream&streams != 0 {
			r.capped = true
			break
		}
	}
	return r
}

func (r *readResult) appendTo(s Stream, l *outputLog, from, to int64) {
	if s == Stderr {
		r.stderr = l.copyTo(r.stderr, from, to)
	} else {
		r.stdout = l.copyTo(r.stdout, from, to)
	}
}

// cutPoint returns how many bytes of [from, to) fit in budget without
// splitting a character; budget is less than to-from. When first is true
// and not even one character fits, the first character is returned whole so
// that the reader makes progress.
func (l *outputLog) cutPoint(from, to int64, budget int, first bool) int {
	cut := budget
	for cut > 0 && !utf8.RuneStart(l.at(from+int64(cut))) {
		cut--
	}
	if cut == 0 && first {
		var head [utf8.UTFMax]byte
		n := len(l.copyTo(head[:0], from, min(to, from+utf8.UTFMax)))
		_, size := utf8.DecodeRune(head[:n])
		return size
	}
	return cut
}
