package session

import (
	"strings"
	"testing"
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
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newOutputLog(tc.capacity)
			for _, w := range tc.writes {
				l.append(w.s, []byte(w.data))
			}
			r := l.readFrom(tc.from, tc.max, tc.streams)
			if string(r.stdout) != tc.stdout || string(r.stderr) != tc.stderr || r.next != tc.next ||
				r.evicted != tc.evicted || r.capped != tc.capped {
				t.Errorf("readFrom(%d, %d) = stdout %q stderr %q next %d evicted %v capped %v; want %q %q %d %v %v",
					tc.from, tc.max, r.stdout, r.stderr, r.next, r.evicted, r.capped,
					tc.stdout, tc.stderr, tc.next, tc.evicted, tc.capped)
			}
		})
	}
}

func TestOutputLogReadTail(t *testing.T) {
	l := newOutputLog(1000)
	l.append(Stdout, []byte("line1\n"))
	l.append(Stderr, []byte("err\n"))
	l.append(Stdout, []byte("line2\n"))
	r := l.readTail(8, Both)
	if string(r.stderr) != "r\n" || string(r.stdout) != "line2\n" || r.next != 16 || !r.capped {
		t.Errorf("readTail(8) = %q %q next %d capped %v", r.stdout, r.stderr, r.next, r.capped)
	}
	r = l.readTail(100, Both)
	if string(r.stdout) != "line1\nline2\n" || string(r.stderr) != "err\n" || r.capped || r.evicted {
		t.Errorf("readTail(100) = %q %q capped %v evicted %v", r.stdout, r.stderr, r.capped, r.evicted)
	}
	r = l.readTail(4, Stderr)
	if string(r.stderr) != "err\n" || r.capped {
		t.Errorf("readTail(4, Stderr) = %q capped %v", r.stderr, r.capped)
	}
}

// Paging with next_seq reassembles the output exactly, whatever the cap.
func TestOutputLogPaging(t *testing.T) {
	l := newOutputLog(1 << 20)
	want := strings.Repeat("héllo wörld € 😀 ", 200)
	for i := 0; i < len(want); i += 37 {
		s := Stdout
		if i%2 == 1 {
			s = Stderr
		}
		l.append(s, []byte(want[i:min(i+37, len(want))]))
	}
	for _, max := range []int{1, 3, 7, 100, 5000} {
		var got []byte
		var pos int64
		for pos < l.end {
			r := l.readFrom(pos, max, Both)
			if r.next <= pos {
				t.Fatalf("max %d: no progress at %d", max, pos)
			}
			if n := len(r.stdout) + len(r.stderr); int64(n) != r.next-pos || n > max && n > 4 {
				t.Fatalf("max %d: page [%d, %d) returned %d bytes", max, pos, r.next, n)
			}
			got = append(got, l.merged(pos, r.next)...)
			pos = r.next
		}
		if string(got) != want {
			t.Errorf("max %d: paging lost or duplicated bytes", max)
		}
	}
}

// merged returns the log bytes in [from, to) in position order.
func (l *outputLog) merged(from, to int64) []byte {
	var out []byte
	for _, c := range l.chunks {
		for i, b := range c.data {
			if p := c.pos + int64(i); p >= from && p < to {
				out = append(out, b)
			}
		}
	}
	return out
}
