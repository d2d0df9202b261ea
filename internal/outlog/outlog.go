// Package outlog is a process's output log: a byte-capped ring of the
// clean output of both streams, with positions counted in bytes appended
// over the process's life, and line scans over it. Binary output is kept
// as it came, in parts of its own that text reads leave out (see
// [Log.AppendBinary]). It is not safe for concurrent use: the owning
// session.Process locks around it.
package outlog

import (
	"bytes"
	"iter"
	"slices"
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

// streamRun marks where output of one stream begins, text or binary; it
// lasts until the next run's position (or the end of the log).
type streamRun struct {
	pos    int64
	stream Stream
	binary bool
}

// minRing is the smallest ring a log with output gets: most commands print
// little, and a finished process's log is kept until cleanup.
const minRing = 1 << 10

// Log is a byte-capped log of a process's output. Positions count bytes
// appended over the process's life; both streams share one position space, so
// a position is a cursor into the merged output. Old bytes are evicted from
// the front once more than capacity are retained.
//
// The bytes live in a ring that grows (doubling) up to capacity and is then
// reused in place, so a busy process's appends allocate nothing. The byte at
// position p is at buf[p%len(buf)]. Which stream each byte came from is kept
// as runs, one per change of stream or between text and binary (PTY mode
// has a single run of text; at worst there is one per retained byte).
//
// Not safe for concurrent use: the owning Process locks around it.
type Log struct {
	capacity int
	buf      []byte
	runs     []streamRun // in position order; runs[0].pos <= start
	start    int64       // position of the first retained byte
	end      int64       // position the next byte will get
	total    [2]int64
	// head is a copy of the first HeadSize bytes, with their streams;
	// lines counts the line ends ever appended.
	head     []byte
	headRuns []streamRun
	lines    int64
}

func New(capacity int) *Log {
	return &Log{capacity: capacity}
}

// Start returns the position of the first retained byte.
func (l *Log) Start() int64 { return l.start }

// End returns the position the next byte will get.
func (l *Log) End() int64 { return l.end }

// Total returns how many bytes of stream s were ever appended.
func (l *Log) Total(s Stream) int64 { return l.total[streamIndex(s)] }

// Held returns the size of the ring: the memory the log holds.
func (l *Log) Held() int { return len(l.buf) }

// Trim shrinks the ring to the bytes it retains, for a log that is not
// expected to grow (its process ended): a finished command's few bytes
// then cost no minimum ring. Appending later still works.
func (l *Log) Trim() {
	n := int(l.end - l.start)
	if n >= len(l.buf) {
		return
	}
	old := l.buf
	l.buf = nil
	if n > 0 {
		l.buf = make([]byte, n)
	}
	for p := l.start; p < l.end; {
		seg := segment(old, p, l.end)
		c := copy(l.buf[p%int64(n):], seg)
		p += int64(c)
	}
	l.runs = slices.Clip(l.runs)
}

// Drop evicts every retained byte and releases the ring, as a full log
// evicts its oldest bytes: reads report them evicted.
func (l *Log) Drop() {
	if l.end > l.start {
		l.evict(l.end)
	}
	l.buf = nil
}

func streamIndex(s Stream) int {
	if s == Stderr {
		return 1
	}
	return 0
}

// Append adds b to the log as text output of stream s.
func (l *Log) Append(s Stream, b []byte) { l.append(s, b, false) }

// AppendBinary adds b to the log as binary output of stream s: it is kept
// as it is, takes positions as text does and counts against the capacity
// byte for byte, but text reads (ReadFrom, ReadTail, HeadTail) leave it
// out of their bytes and list it in Result.Binary instead, line scans skip
// it, and only ReadRaw returns it.
func (l *Log) AppendBinary(s Stream, b []byte) { l.append(s, b, true) }

func (l *Log) append(s Stream, b []byte, binary bool) {
	if len(b) == 0 || l.capacity <= 0 {
		return
	}
	l.total[streamIndex(s)] += int64(len(b))
	l.keepHead(s, b, binary)
	l.lines += int64(bytes.Count(b, nl))
	if n := len(l.runs); n == 0 || l.runs[n-1].stream != s || l.runs[n-1].binary != binary {
		l.runs = append(l.runs, streamRun{pos: l.end, stream: s, binary: binary})
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
func (l *Log) grow(need int) {
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
func (l *Log) evict(to int64) {
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
func (l *Log) at(p int64) byte {
	return l.buf[p%int64(len(l.buf))]
}

// segment returns the bytes of ring buf from position p on that are
// contiguous in buf, up to position to.
func segment(buf []byte, p, to int64) []byte {
	i := int(p % int64(len(buf)))
	return buf[i:min(len(buf), i+int(to-p))]
}

// copyTo appends the bytes in [from, to) to dst.
func (l *Log) copyTo(dst []byte, from, to int64) []byte {
	for from < to {
		seg := segment(l.buf, from, to)
		dst = append(dst, seg...)
		from += int64(len(seg))
	}
	return dst
}

// Chunk is a run of retained bytes of one stream, text or binary,
// contiguous in the ring, starting at log position pos.
type Chunk struct {
	Pos    int64
	Stream Stream
	Binary bool // Data is binary output (AppendBinary), not text
	Data   []byte
}

// Chunks returns the retained bytes from position from on (or from the
// first retained byte, if from was evicted), in position order, as Chunks of
// one stream each. The data points into the log: use it before the log
// changes.
func (l *Log) Chunks(from int64) iter.Seq[Chunk] {
	return func(yield func(Chunk) bool) {
		from := max(from, l.start)
		for i := l.runAt(from); i < len(l.runs); i++ {
			rs, re := l.runBounds(i)
			for p := max(rs, from); p < re; {
				seg := segment(l.buf, p, re)
				if !yield(Chunk{Pos: p, Stream: l.runs[i].stream, Binary: l.runs[i].binary, Data: seg}) {
					return
				}
				p += int64(len(seg))
			}
		}
	}
}

// runAt returns the index of the run holding position p: the last one that
// begins at or before it.
func (l *Log) runAt(p int64) int {
	return max(sort.Search(len(l.runs), func(i int) bool { return l.runs[i].pos > p })-1, 0)
}

// runBounds returns the retained part [from, to) of run i.
func (l *Log) runBounds(i int) (from, to int64) {
	from, to = max(l.runs[i].pos, l.start), l.end
	if i+1 < len(l.runs) {
		to = l.runs[i+1].pos
	}
	return from, to
}

// Result is a slice of the log as one response carries it.
type Result struct {
	Stdout, Stderr []byte
	Start          int64 // position of the first byte considered
	Next           int64 // position of the first byte not returned
	Evicted        bool  // bytes the reader asked for were evicted
	Capped         bool  // the byte budget cut the answer; more from next
	// Binary lists the binary parts of the slice, in position order. A
	// text read leaves their bytes out of Stdout and Stderr (the text
	// around them is joined); ReadRaw includes them.
	Binary []Part
	raw    bool // binary bytes are copied too (ReadRaw)
}

// Part is a stretch [From, To) of one stream's binary output.
type Part struct {
	From, To int64
	Stream   Stream
}

// BinaryBytes is how many bytes the result's binary parts hold.
func (r *Result) BinaryBytes() int64 {
	n := int64(0)
	for _, p := range r.Binary {
		n += p.To - p.From
	}
	return n
}

// ReadFrom returns the bytes of the selected streams from position from on,
// at most limit bytes in all, binary parts counted but left out (see
// Result.Binary). A cut lands on a character boundary (a single character
// longer than limit is returned whole so a reader always advances; binary
// output is cut at any byte), and next is the first position not returned,
// so an incremental reader that passes next back loses nothing still
// retained.
func (l *Log) ReadFrom(from int64, limit int, streams Stream) Result {
	return l.readFrom(Result{}, from, limit, streams)
}

// ReadRaw is ReadFrom with the bytes of binary parts included as they were
// appended: the exact stored bytes of the range, text and binary.
func (l *Log) ReadRaw(from int64, limit int, streams Stream) Result {
	return l.readFrom(Result{raw: true}, from, limit, streams)
}

func (l *Log) readFrom(r Result, from int64, limit int, streams Stream) Result {
	r.Start, r.Next = from, l.end
	if from < l.start {
		r.Evicted = true
		from = l.start
		r.Start = from
	}
	if from > l.end {
		from = l.end
		r.Start = from
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
			cut := budget
			if !l.runs[i].binary {
				cut = l.cutPoint(rs, re, budget, budget == limit)
			} else if cut == 0 && budget == limit {
				cut = 1 // a reader always advances
			}
			r.appendTo(l.runs[i], l, rs, rs+int64(cut))
			r.Next = rs + int64(cut)
			r.Capped = true
			return r
		}
		r.appendTo(l.runs[i], l, rs, re)
		budget -= int(re - rs)
	}
	return r
}

// ReadTail returns the newest bytes of the selected streams, at most limit,
// with next at the end of the log. It serves answers that carry no cursor:
// what matters then is the latest output, as with a terminal's last screen.
func (l *Log) ReadTail(limit int, streams Stream) Result {
	return l.readTail(Result{}, limit, streams)
}

// ReadTailRaw is ReadTail with the bytes of binary parts included (see
// ReadRaw): the same slice of the log, as stored.
func (l *Log) ReadTailRaw(limit int, streams Stream) Result {
	return l.readTail(Result{raw: true}, limit, streams)
}

func (l *Log) readTail(r0 Result, limit int, streams Stream) Result {
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
	r := l.readFrom(r0, from, limit, streams)
	// Anything before from that belongs to the selected streams was left out.
	r.Capped = false
	r.Evicted = l.start > 0
	for i := range l.runs {
		rs, re := l.runBounds(i)
		if rs >= from {
			break
		}
		if re > rs && l.runs[i].stream&streams != 0 {
			r.Capped = true
			break
		}
	}
	return r
}

// appendTo adds the bytes [from, to) of run to r: to its stream's bytes if
// they are text or the read is raw, and to its binary parts if they are
// binary.
func (r *Result) appendTo(run streamRun, l *Log, from, to int64) {
	if run.binary {
		r.addPart(run.stream, from, to)
		if !r.raw {
			return
		}
	}
	if run.stream == Stderr {
		r.Stderr = l.copyTo(r.Stderr, from, to)
	} else {
		r.Stdout = l.copyTo(r.Stdout, from, to)
	}
}

// addPart lists [from, to) of stream s as binary, joined to the last part
// when it continues it.
func (r *Result) addPart(s Stream, from, to int64) {
	if n := len(r.Binary); n > 0 && r.Binary[n-1].To == from && r.Binary[n-1].Stream == s {
		r.Binary[n-1].To = to
		return
	}
	r.Binary = append(r.Binary, Part{From: from, To: to, Stream: s})
}

// cutPoint returns how many bytes of [from, to) fit in budget without
// splitting a character; budget is less than to-from. When first is true
// and not even one character fits, the first character is returned whole so
// that the reader makes progress.
func (l *Log) cutPoint(from, to int64, budget int, first bool) int {
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
