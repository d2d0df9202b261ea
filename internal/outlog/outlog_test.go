package outlog

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

type logWrite struct {
	s    Stream
	data string
}

func TestOutputLogReadFrom(t *testing.T) {
	for _, tc := range []struct {
		name     string
		capacity int
		writes   []logWrite
		from     int64
		max      int
		streams  Stream
		stdout   string
		stderr   string
		next     int64
		evicted  bool
		capped   bool
	}{
		{name: "empty", capacity: 100, max: 10, streams: Both, next: 0},
		{name: "all", capacity: 100, writes: []logWrite{{Stdout, "hello"}}, max: 10, streams: Both, stdout: "hello", next: 5},
		{name: "since", capacity: 100, writes: []logWrite{{Stdout, "hello"}, {Stdout, " world"}}, from: 5, max: 100, streams: Both, stdout: " world", next: 11},
		{name: "past end", capacity: 100, writes: []logWrite{{Stdout, "hello"}}, from: 99, max: 10, streams: Both, next: 5},
		{name: "shared positions", capacity: 100, writes: []logWrite{{Stdout, "out1"}, {Stderr, "err1"}, {Stdout, "out2"}},
			from: 4, max: 100, streams: Both, stdout: "out2", stderr: "err1", next: 12},
		{name: "stdout only", capacity: 100, writes: []logWrite{{Stdout, "out1"}, {Stderr, "err1"}, {Stdout, "out2"}},
			max: 100, streams: Stdout, stdout: "out1out2", next: 12},
		{name: "cap cuts and next points at the first byte not returned", capacity: 100, writes: []logWrite{{Stdout, "0123456789"}},
			from: 2, max: 4, streams: Both, stdout: "2345", next: 6, capped: true},
		{name: "cap across streams", capacity: 100, writes: []logWrite{{Stdout, "aaa"}, {Stderr, "bbb"}},
			max: 4, streams: Both, stdout: "aaa", stderr: "b", next: 4, capped: true},
		{name: "cap with a filtered stream skips its bytes", capacity: 100, writes: []logWrite{{Stderr, "bbb"}, {Stdout, "aaaa"}},
			max: 2, streams: Stdout, stdout: "aa", next: 5, capped: true},
		{name: "cap never splits a character", capacity: 100, writes: []logWrite{{Stdout, "aé"}},
			max: 2, streams: Both, stdout: "a", next: 1, capped: true},
		{name: "a character larger than the cap is returned whole", capacity: 100, writes: []logWrite{{Stdout, "€x"}},
			max: 1, streams: Both, stdout: "€", next: 3, capped: true},
		{name: "evicted", capacity: 10, writes: []logWrite{{Stdout, "0123456789"}, {Stdout, "abcde"}},
			max: 100, streams: Both, stdout: "56789abcde", next: 15, evicted: true},
		{name: "eviction keeps characters whole", capacity: 4, writes: []logWrite{{Stdout, "ab€"}, {Stdout, "d"}},
			max: 100, streams: Both, stdout: "€d", next: 6, evicted: true},
		{name: "since within retained", capacity: 10, writes: []logWrite{{Stdout, "0123456789"}, {Stdout, "abcde"}},
			from: 12, max: 100, streams: Both, stdout: "cde", next: 15},
		{name: "read across the wrap of the ring", capacity: 8, writes: []logWrite{{Stdout, "abcdef"}, {Stdout, "ghij"}},
			from: 6, max: 100, streams: Both, stdout: "ghij", next: 10},
		{name: "capped read across the wrap", capacity: 8, writes: []logWrite{{Stdout, "abcdef"}, {Stdout, "ghij"}},
			from: 5, max: 4, streams: Both, stdout: "fghi", next: 9, capped: true},
		{name: "wrapped log keeps the streams apart", capacity: 8, writes: []logWrite{{Stdout, "abcd"}, {Stderr, "efgh"}, {Stdout, "ijkl"}},
			max: 100, streams: Both, stdout: "ijkl", stderr: "efgh", next: 12, evicted: true},
		{name: "a wholly evicted run is gone", capacity: 4, writes: []logWrite{{Stdout, "ab"}, {Stderr, "cd"}, {Stdout, "efgh"}},
			max: 100, streams: Stderr, next: 8, evicted: true},
		{name: "a partly evicted run keeps its stream", capacity: 5, writes: []logWrite{{Stderr, "abcd"}, {Stdout, "efg"}},
			from: 2, max: 100, streams: Both, stdout: "efg", stderr: "cd", next: 7},
		{name: "a write larger than the log keeps its newest bytes", capacity: 4, writes: []logWrite{{Stdout, "xy"}, {Stdout, "0123456789"}},
			max: 100, streams: Both, stdout: "6789", next: 12, evicted: true},
		{name: "eviction across the wrap keeps characters whole", capacity: 6, writes: []logWrite{{Stdout, "ab"}, {Stdout, "€€"}, {Stdout, "x"}},
			max: 100, streams: Both, stdout: "€x", next: 9, evicted: true},
		{name: "eviction lands on a boundary of a 4-byte character", capacity: 5, writes: []logWrite{{Stdout, "a😀"}, {Stdout, "bc"}},
			max: 100, streams: Both, stdout: "bc", next: 7, evicted: true},
		{name: "invalid bytes: eviction skips at most one character's worth", capacity: 4, writes: []logWrite{{Stdout, "\x80\x80\x80\x80\x80\x80"}},
			max: 100, streams: Both, stdout: "\x80", next: 6, evicted: true},
		{name: "capped read of a character split by the wrap", capacity: 8, writes: []logWrite{{Stdout, "abcdefg"}, {Stdout, "€z"}},
			from: 7, max: 2, streams: Both, stdout: "€", next: 10, capped: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := New(tc.capacity)
			for _, w := range tc.writes {
				l.Append(w.s, []byte(w.data))
			}
			r := l.ReadFrom(tc.from, tc.max, tc.streams)
			if string(r.Stdout) != tc.stdout || string(r.Stderr) != tc.stderr || r.Next != tc.next ||
				r.Evicted != tc.evicted || r.Capped != tc.capped {
				t.Errorf("readFrom(%d, %d) = stdout %q stderr %q next %d evicted %v capped %v; want %q %q %d %v %v",
					tc.from, tc.max, r.Stdout, r.Stderr, r.Next, r.Evicted, r.Capped,
					tc.stdout, tc.stderr, tc.next, tc.evicted, tc.capped)
			}
		})
	}
}

func TestOutputLogReadTail(t *testing.T) {
	l := New(1000)
	l.Append(Stdout, []byte("line1\n"))
	l.Append(Stderr, []byte("err\n"))
	l.Append(Stdout, []byte("line2\n"))
	r := l.ReadTail(8, Both)
	if string(r.Stderr) != "r\n" || string(r.Stdout) != "line2\n" || r.Next != 16 || !r.Capped {
		t.Errorf("readTail(8) = %q %q next %d capped %v", r.Stdout, r.Stderr, r.Next, r.Capped)
	}
	r = l.ReadTail(100, Both)
	if string(r.Stdout) != "line1\nline2\n" || string(r.Stderr) != "err\n" || r.Capped || r.Evicted {
		t.Errorf("readTail(100) = %q %q capped %v evicted %v", r.Stdout, r.Stderr, r.Capped, r.Evicted)
	}
	r = l.ReadTail(4, Stderr)
	if string(r.Stderr) != "err\n" || r.Capped {
		t.Errorf("readTail(4, Stderr) = %q capped %v", r.Stderr, r.Capped)
	}
}

// Paging with next_seq reassembles the output exactly, whatever the cap.
func TestOutputLogPaging(t *testing.T) {
	l := New(1 << 20)
	want := strings.Repeat("héllo wörld € 😀 ", 200)
	for i := 0; i < len(want); i += 37 {
		s := Stdout
		if i%2 == 1 {
			s = Stderr
		}
		l.Append(s, []byte(want[i:min(i+37, len(want))]))
	}
	for _, max := range []int{1, 3, 7, 100, 5000} {
		var got []byte
		var pos int64
		for pos < l.end {
			r := l.ReadFrom(pos, max, Both)
			if r.Next <= pos {
				t.Fatalf("max %d: no progress at %d", max, pos)
			}
			if n := len(r.Stdout) + len(r.Stderr); int64(n) != r.Next-pos || n > max && n > 4 {
				t.Fatalf("max %d: page [%d, %d) returned %d bytes", max, pos, r.Next, n)
			}
			got = append(got, l.merged(pos, r.Next)...)
			pos = r.Next
		}
		if string(got) != want {
			t.Errorf("max %d: paging lost or duplicated bytes", max)
		}
	}
}

// merged returns the log bytes in [from, to) in position order.
func (l *Log) merged(from, to int64) []byte {
	var out []byte
	for c := range l.Chunks(from) {
		if c.Pos >= to {
			break
		}
		out = append(out, c.Data[:min(int64(len(c.Data)), to-c.Pos)]...)
	}
	return out
}

// logModel is the obvious, slow log: every byte with its stream, and the
// same eviction rule (keep the newest capacity bytes, then start at a
// character boundary, skipping at most one character's continuation bytes).
type logModel struct {
	capacity int
	data     []byte
	streams  []Stream
	start    int
}

func (m *logModel) append(s Stream, b []byte) {
	for _, c := range b {
		m.data = append(m.data, c)
		m.streams = append(m.streams, s)
	}
	if len(m.data)-m.start > m.capacity {
		m.start = len(m.data) - m.capacity
		for i := 0; i < 3 && m.start < len(m.data) && !utf8.RuneStart(m.data[m.start]); i++ {
			m.start++
		}
	}
}

// selected returns the retained bytes of the selected streams from from on,
// in position order, and split by stream.
func (m *logModel) selected(from int, streams Stream) (merged, stdout, stderr []byte) {
	for p := max(from, m.start); p < len(m.data); p++ {
		if m.streams[p]&streams == 0 {
			continue
		}
		merged = append(merged, m.data[p])
		if m.streams[p] == Stderr {
			stderr = append(stderr, m.data[p])
		} else {
			stdout = append(stdout, m.data[p])
		}
	}
	return merged, stdout, stderr
}

// TestOutputLogModel appends random UTF-8 text in random pieces to both
// streams of small logs, so the ring wraps and evicts many times, and checks
// the log against logModel after every append: what is retained, full reads,
// paging with next_seq at several caps, and the tail.
func TestOutputLogModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "b", "\n", "é", "€", "😀"}
	for trial := range 200 {
		capacity := 4 + rng.IntN(60)
		l := New(capacity)
		m := &logModel{capacity: capacity}
		for step := range 40 {
			var piece strings.Builder
			for range rng.IntN(20) {
				piece.WriteString(alphabet[rng.IntN(len(alphabet))])
			}
			s := Stdout
			if rng.IntN(3) == 0 {
				s = Stderr
			}
			l.Append(s, []byte(piece.String()))
			m.append(s, []byte(piece.String()))
			where := func() string { return fmt.Sprintf("trial %d step %d (capacity %d)", trial, step, capacity) }
			if l.start != int64(m.start) || l.end != int64(len(m.data)) {
				t.Fatalf("%s: log holds [%d, %d), model [%d, %d)", where(), l.start, l.end, m.start, len(m.data))
			}
			// chunks gives every retained byte once, in order, with its
			// stream, from any position on.
			from := rng.IntN(len(m.data) + 2)
			next := int64(max(from, m.start))
			for c := range l.Chunks(int64(from)) {
				if c.Pos != next || len(c.Data) == 0 {
					t.Fatalf("%s: chunk at %d (%d bytes), want one at %d", where(), c.Pos, len(c.Data), next)
				}
				for k, b := range c.Data {
					if p := int(c.Pos) + k; b != m.data[p] || c.Stream != m.streams[p] {
						t.Fatalf("%s: chunk byte at %d is %q of %d, model %q of %d", where(), p, b, c.Stream, m.data[p], m.streams[p])
					}
				}
				next += int64(len(c.Data))
			}
			if next < l.end {
				t.Fatalf("%s: chunks stopped at %d, log ends at %d", where(), next, l.end)
			}
			for _, streams := range []Stream{Both, Stdout, Stderr} {
				from := rng.IntN(len(m.data) + 2)
				_, wantOut, wantErr := m.selected(from, streams)
				r := l.ReadFrom(int64(from), 1<<20, streams)
				if string(r.Stdout) != string(wantOut) || string(r.Stderr) != string(wantErr) || r.Capped ||
					r.Evicted != (from < m.start) || r.Next != l.end {
					t.Fatalf("%s: readFrom(%d, all, %d) = %q %q next %d evicted %v capped %v; want %q %q",
						where(), from, streams, r.Stdout, r.Stderr, r.Next, r.Evicted, r.Capped, wantOut, wantErr)
				}
				// Paging from the first retained byte reassembles the same
				// bytes, cut only at character boundaries.
				limit := 1 + rng.IntN(12)
				var gotOut, gotErr []byte
				for pos := l.start; pos < l.end; {
					r := l.ReadFrom(pos, limit, streams)
					if r.Next <= pos && r.Next < l.end {
						t.Fatalf("%s: paging with cap %d stuck at %d", where(), limit, pos)
					}
					if n := len(r.Stdout) + len(r.Stderr); n > limit && n > utf8.UTFMax {
						t.Fatalf("%s: page of cap %d has %d bytes", where(), limit, n)
					}
					if !utf8.Valid(r.Stdout) || !utf8.Valid(r.Stderr) {
						t.Fatalf("%s: page [%d, %d) splits a character: %q %q", where(), pos, r.Next, r.Stdout, r.Stderr)
					}
					gotOut, gotErr = append(gotOut, r.Stdout...), append(gotErr, r.Stderr...)
					pos = r.Next
				}
				_, wantOut, wantErr = m.selected(m.start, streams)
				if string(gotOut) != string(wantOut) || string(gotErr) != string(wantErr) {
					t.Fatalf("%s: paging with cap %d gave %q %q; want %q %q", where(), limit, gotOut, gotErr, wantOut, wantErr)
				}
				// The tail is the newest selected bytes, whole characters.
				merged, _, _ := m.selected(m.start, streams)
				r = l.ReadTail(limit, streams)
				n := len(r.Stdout) + len(r.Stderr)
				tail := merged[len(merged)-n:]
				if n > limit || !utf8.Valid(tail) || len(merged)-n >= utf8.UTFMax && n+utf8.UTFMax <= limit ||
					r.Capped != (n < len(merged)) || r.Next != l.end {
					t.Fatalf("%s: readTail(%d, %d) = %q %q capped %v; selected %q", where(), limit, streams, r.Stdout, r.Stderr, r.Capped, merged)
				}
				_, tailOut, tailErr := m.selected(int(l.end)-countFrom(m, streams, n), streams)
				if string(r.Stdout) != string(tailOut) || string(r.Stderr) != string(tailErr) {
					t.Fatalf("%s: readTail(%d, %d) = %q %q; want %q %q", where(), limit, streams, r.Stdout, r.Stderr, tailOut, tailErr)
				}
			}
		}
	}
}

// countFrom returns how far back from the end of the model the last n
// selected bytes begin.
func countFrom(m *logModel, streams Stream, n int) int {
	back := 0
	for p := len(m.data) - 1; p >= m.start && n > 0; p-- {
		back++
		if m.streams[p]&streams != 0 {
			n--
		}
	}
	return back
}

// Trim cuts the ring to what it retains; reads see the same bytes and the
// log still grows afterwards.
func TestTrimKeepsBytesAndGrowsAgain(t *testing.T) {
	l := New(1 << 16)
	l.Append(Stdout, []byte("hello "))
	l.Append(Stderr, []byte("world"))
	before := l.ReadTail(1<<10, Both)
	l.Trim()
	if l.Held() != 11 {
		t.Errorf("Held after Trim = %d, want 11", l.Held())
	}
	if after := l.ReadTail(1<<10, Both); string(after.Stdout) != string(before.Stdout) || string(after.Stderr) != string(before.Stderr) {
		t.Errorf("Trim changed the log: %+v, was %+v", after, before)
	}
	l.Append(Stdout, []byte(" again"))
	if got := l.ReadTail(1<<10, Stdout); string(got.Stdout) != "hello  again" {
		t.Errorf("after Trim and Append: %q", got.Stdout)
	}
}
