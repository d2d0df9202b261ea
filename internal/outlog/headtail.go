package outlog

import (
	"bytes"
	"unicode/utf8"
)

// HeadSize is how many of a process's first output bytes the log keeps
// apart from the ring, so that the start of a long output (a compiler's
// first error) is still there when the ring has evicted what followed.
const HeadSize = 16 << 10

// Omission is the stretch an answer leaves out between its head and its
// tail: [From, To) in log positions.
type Omission struct {
	From, To int64
	Bytes    int64 // To - From
	Lines    int64 // line ends in [From, To)
	Evicted  int64 // bytes of [From, To) that ReadFrom no longer returns
}

// keepHead records the first HeadSize bytes as they are appended, with
// their streams; called before the end advances.
func (l *Log) keepHead(s Stream, b []byte, binary bool) {
	if l.end >= HeadSize {
		return
	}
	if n := len(l.headRuns); n == 0 || l.headRuns[n-1].stream != s || l.headRuns[n-1].binary != binary {
		l.headRuns = append(l.headRuns, streamRun{pos: l.end, stream: s, binary: binary})
	}
	l.head = append(l.head, b[:min(len(b), HeadSize-int(l.end))]...)
}

var nl = []byte{'\n'}

// headEnd is the position after the kept head.
func (l *Log) headEnd() int64 { return int64(len(l.head)) }

// stored reports whether position p can be read, from the ring or the head.
func (l *Log) stored(p int64) bool {
	return p >= l.start && p < l.end || p < l.headEnd()
}

// byteAt returns a stored byte, from the ring if it is there.
func (l *Log) byteAt(p int64) byte {
	if p >= l.start {
		return l.at(p)
	}
	return l.head[p]
}

// ringLines counts the line ends in the ring's [from, to).
func (l *Log) ringLines(from, to int64) int64 {
	n := int64(0)
	for p := from; p < to; {
		seg := segment(l.buf, p, to)
		n += int64(bytes.Count(seg, nl))
		p += int64(len(seg))
	}
	return n
}

// linesBefore counts the line ends before position p, which is stored or
// the ring's start: evicted ones are the total less those still held.
func (l *Log) linesBefore(p int64) int64 {
	if p < l.start {
		return int64(bytes.Count(l.head[:min(p, l.headEnd())], nl))
	}
	return l.lines - l.ringLines(p, l.end)
}

// HeadTail returns the output from position from on (from < 0: all of it,
// with the kept head when the ring has evicted it) in at most limit bytes:
// all of it when it fits, or else its head and its tail, cut at line ends
// where one lies in the outer half of each part, with the stretch between
// them described in om. Next is the end of the log. A from that the ring
// has evicted starts, as with ReadFrom, at the oldest retained byte
// (Evicted); only an answer with no from shows the kept head.
//
// Only the merged output is cut this way: with one stream selected out of
// two, it is ReadFrom (or ReadTail) as before.
func (l *Log) HeadTail(from int64, limit int, streams Stream) (Result, *Omission) {
	return l.headTail(Result{}, from, limit, streams)
}

// HeadTailRaw is HeadTail with the bytes of binary parts included (see
// ReadRaw): the same slices of the log, as stored.
func (l *Log) HeadTailRaw(from int64, limit int, streams Stream) (Result, *Omission) {
	return l.headTail(Result{raw: true}, from, limit, streams)
}

func (l *Log) headTail(r Result, from int64, limit int, streams Stream) (Result, *Omission) {
	if streams != Both && len(l.runs) > 1 || len(l.headRuns) > 1 && streams != Both {
		if from < 0 {
			return l.readTail(r, limit, streams), nil
		}
		return l.readFrom(r, from, limit, streams), nil
	}
	r.Next = l.end
	lo := from
	gap := false // the stretch [headEnd, start) is gone
	switch {
	case from < 0 && l.start > l.headEnd() && l.headEnd() > 0:
		lo, gap = 0, true
		r.Evicted = true
	case from < 0:
		lo = l.start
		r.Evicted = l.start > 0 && l.start > l.headEnd()
	case from < l.start:
		lo, r.Evicted = l.start, true
	case from > l.end:
		lo = l.end
	}
	r.Start = lo
	size := l.end - lo
	if gap {
		size = l.headEnd() + (l.end - l.start)
	}
	if size <= int64(limit) {
		if gap {
			l.appendRange(&r, 0, l.headEnd())
			l.appendRange(&r, l.start, l.end)
			return r, &Omission{From: l.headEnd(), To: l.start, Bytes: l.start - l.headEnd(),
				Lines: l.linesBefore(l.start) - l.linesBefore(l.headEnd()), Evicted: l.start - l.headEnd()}
		}
		if lo < l.start {
			lo = l.start
		}
		l.appendRange(&r, lo, l.end)
		return r, nil
	}
	hb := limit / 2
	headStop := lo + int64(hb)
	if gap {
		headStop = min(headStop, l.headEnd())
	}
	headStop = l.cutBack(lo, headStop)
	floor := headStop
	if gap {
		floor = l.start
	}
	tailStart := l.cutForward(max(l.end-int64(limit-int(headStop-lo)), floor), l.end)
	l.appendRange(&r, lo, headStop)
	l.appendRange(&r, tailStart, l.end)
	r.Capped = true
	om := &Omission{From: headStop, To: tailStart, Bytes: tailStart - headStop,
		Lines: l.linesBefore(tailStart) - l.linesBefore(headStop)}
	if headStop < l.start {
		om.Evicted = l.start - headStop
	}
	return r, om
}

// cutBack moves a head's end back to just after a line end in its outer
// half, or else off a character it would split.
func (l *Log) cutBack(from, to int64) int64 {
	for p := to; p > from+(to-from)/2; p-- {
		if l.byteAt(p-1) == '\n' {
			return p
		}
	}
	for q := to - 1; q >= from && q > to-utf8.UTFMax; q-- {
		if c := l.byteAt(q); utf8.RuneStart(c) {
			var buf [utf8.UTFMax]byte
			n := 0
			for p := q; p < to; p++ {
				buf[n] = l.byteAt(p)
				n++
			}
			if !utf8.FullRune(buf[:n]) {
				return q
			}
			break
		}
	}
	return to
}

// cutForward moves a tail's start forward to just after a line end in its
// outer half, or to a character boundary.
func (l *Log) cutForward(from, end int64) int64 {
	if l.stored(from-1) && l.byteAt(from-1) == '\n' {
		return from
	}
	for p := from; p < from+(end-from)/2; p++ {
		if l.byteAt(p) == '\n' {
			return p + 1
		}
	}
	for from < end && !utf8.RuneStart(l.byteAt(from)) {
		from++
	}
	return from
}

// appendRange adds the stored bytes [from, to) to r by stream.
func (l *Log) appendRange(r *Result, from, to int64) {
	if from >= to {
		return
	}
	if from < l.start { // from the kept head
		to := min(to, l.headEnd())
		for i, run := range l.headRuns {
			rs, re := max(run.pos, from), to
			if i+1 < len(l.headRuns) {
				re = min(re, l.headRuns[i+1].pos)
			}
			switch {
			case rs >= re:
			case run.binary && !r.raw:
				r.addPart(run.stream, rs, re)
			case run.binary && run.stream == Stderr:
				r.addPart(run.stream, rs, re)
				r.Stderr = append(r.Stderr, l.head[rs:re]...)
			case run.binary:
				r.addPart(run.stream, rs, re)
				r.Stdout = append(r.Stdout, l.head[rs:re]...)
			case run.stream == Stderr:
				r.Stderr = append(r.Stderr, l.head[rs:re]...)
			default:
				r.Stdout = append(r.Stdout, l.head[rs:re]...)
			}
		}
		return
	}
	for i := l.runAt(from); i < len(l.runs); i++ {
		rs, re := l.runBounds(i)
		rs, re = max(rs, from), min(re, to)
		if rs < re {
			r.appendTo(l.runs[i], l, rs, re)
		}
	}
}
