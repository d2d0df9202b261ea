package outlog

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestHeadTail(t *testing.T) {
	lines := func(n int) string {
		var b strings.Builder
		for i := range n {
			b.WriteString(strings.Repeat(string(rune('a'+i%26)), 9) + "\n")
		}
		return b.String()
	}
	for _, tc := range []struct {
		name        string
		capacity    int
		writes      []logWrite
		from        int64
		limit       int
		stdout      string
		start, next int64
		evicted     bool
		om          *Omission
	}{
		{name: "fits", capacity: 100, writes: []logWrite{{Stdout, "hello\n"}}, from: -1, limit: 10, stdout: "hello\n", next: 6},
		{name: "empty", capacity: 100, from: -1, limit: 10},
		{name: "head and tail at line ends", capacity: 1000, writes: []logWrite{{Stdout, lines(10)}}, from: -1, limit: 40,
			stdout: "aaaaaaaaa\nbbbbbbbbb\niiiiiiiii\njjjjjjjjj\n", next: 100,
			om: &Omission{From: 20, To: 80, Bytes: 60, Lines: 6}},
		{name: "no line end: cut at characters", capacity: 1000, writes: []logWrite{{Stdout, strings.Repeat("é", 50)}}, from: -1, limit: 11,
			stdout: "ééééé", next: 100, om: &Omission{From: 4, To: 94, Bytes: 90}},
		{name: "since: from there on", capacity: 1000, writes: []logWrite{{Stdout, lines(10)}}, from: 30, limit: 40,
			stdout: "ddddddddd\neeeeeeeee\niiiiiiiii\njjjjjjjjj\n", start: 30, next: 100,
			om: &Omission{From: 50, To: 80, Bytes: 30, Lines: 3}},
		{name: "since evicted starts at the ring, as 0.4.0", capacity: 50, writes: []logWrite{{Stdout, lines(10)}}, from: 0, limit: 1000,
			stdout: lines(10)[50:], start: 50, next: 100, evicted: true},
		{name: "the kept head survives eviction", capacity: 1024, writes: []logWrite{{Stdout, "error: first\n"}, {Stdout, strings.Repeat("x\n", HeadSize)}, {Stdout, "done\n"}},
			from: -1, limit: 40, stdout: "error: first\nx\nx\nx\n" + strings.Repeat("x\n", 8) + "done\n", start: 0, next: 13 + 2*HeadSize + 5, evicted: true,
			om: &Omission{From: 19, To: 13 + 2*HeadSize + 5 - 21, Bytes: 2*HeadSize - 22, Lines: HeadSize - 3 - 8, Evicted: 13 + 2*HeadSize + 5 - 1024 - 19}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := New(tc.capacity)
			for _, w := range tc.writes {
				l.Append(w.s, []byte(w.data))
			}
			r, om := l.HeadTail(tc.from, tc.limit, Both)
			if string(r.Stdout) != tc.stdout || r.Start != tc.start || r.Next != tc.next || r.Evicted != tc.evicted {
				t.Errorf("got %q start %d next %d evicted %v; want %q %d %d %v", r.Stdout, r.Start, r.Next, r.Evicted, tc.stdout, tc.start, tc.next, tc.evicted)
			}
			if (om == nil) != (tc.om == nil) || om != nil && *om != *tc.om {
				t.Errorf("omission = %+v, want %+v", om, tc.om)
			}
		})
	}
}

// checkHeadTail checks what every answer must keep: within the limit,
// whole characters, and head + omitted + tail is the output where it is
// stored.
func checkHeadTail(t *testing.T, data []byte, capacity, limit int) {
	l := New(capacity)
	for c := range bytes.SplitAfterSeq(data, []byte("\n")) {
		l.Append(Stdout, c)
	}
	for _, from := range []int64{-1, 0, int64(len(data) / 3)} {
		r, om := l.HeadTail(from, limit, Both)
		if len(r.Stdout) > max(limit, utf8.UTFMax) {
			t.Fatalf("from %d: %d bytes for limit %d", from, len(r.Stdout), limit)
		}
		atRune := from <= 0 || int(from) >= len(data) || utf8.RuneStart(data[from])
		if atRune && utf8.Valid(data) && !utf8.Valid(r.Stdout) {
			t.Fatalf("from %d: a character was split: %q", from, r.Stdout)
		}
		if om == nil {
			if want := data[min(r.Start, int64(len(data))):]; !r.Evicted && !bytes.Equal(r.Stdout, want) {
				t.Fatalf("from %d: %q, want %q", from, r.Stdout, want)
			}
			continue
		}
		if om.Bytes != om.To-om.From || om.From > om.To || om.To > r.Next || om.Lines != int64(bytes.Count(data[om.From:om.To], nl)) {
			t.Fatalf("from %d: omission %+v of %d bytes", from, om, len(data))
		}
		if om.Evicted == 0 && !r.Evicted {
			got := append(append(append([]byte{}, r.Stdout[:om.From-r.Start]...), data[om.From:om.To]...), r.Stdout[om.From-r.Start:]...)
			if !bytes.Equal(got, data[r.Start:]) {
				t.Fatalf("from %d: head + omitted + tail != output", from)
			}
		}
	}
}

func FuzzHeadTail(f *testing.F) {
	f.Add([]byte("one\ntwo\nthree\n"), uint16(100), uint16(5))
	f.Add([]byte(strings.Repeat("é€x\n", 300)), uint16(200), uint16(17))
	f.Add([]byte(strings.Repeat("line of text\n", 3000)), uint16(1024), uint16(64))
	f.Add([]byte{0xff, 0xfe, 0, 'a', '\n'}, uint16(2), uint16(1))
	f.Fuzz(func(t *testing.T, data []byte, capacity, limit uint16) {
		checkHeadTail(t, data, int(capacity)+1, int(limit)+1)
	})
}
