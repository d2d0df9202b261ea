package outlog

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// Whatever the chunking of the log and the timing of the scans, a lineScan
// sees each complete line exactly once, whole, in order, per stream.
func TestLineScanSeesWholeLinesOnce(t *testing.T) {
	text := "first line\nsecond, a bit longer line\n\nhttp://x/ fourth\nlast without newline"
	want := []string{"first line", "second, a bit longer line", "", "http://x/ fourth"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 500 {
		l := New(1 << 20)
		var s LineScan
		var got []string
		scan := func() {
			s.Scan(l, func(b []byte) bool {
				if string(b) != "e" { // stderr's lines
					got = append(got, string(b))
				}
				return false
			})
		}
		rest := text
		for rest != "" {
			n := min(1+rng.IntN(12), len(rest))
			// Interleave stderr noise: it must not mix into stdout lines.
			l.Append(Stdout, []byte(rest[:n]))
			l.Append(Stderr, []byte("e\n"))
			rest = rest[n:]
			if rng.IntN(3) == 0 {
				scan()
			}
		}
		scan()
		if !slices.Equal(got, want) {
			t.Fatalf("lines %q, want %q", got, want)
		}
		if string(s.Partial[0]) != "last without newline" {
			t.Fatalf("partial %q", s.Partial[0])
		}
	}
}

// A match stops the scan after the matching line; the next scan goes on
// from there.
func TestLineScanResumesAfterMatch(t *testing.T) {
	l := New(1 << 20)
	l.Append(Stdout, []byte("a\nmatch\nb\nc\n"))
	var s LineScan
	var seen []string
	if !s.Scan(l, func(b []byte) bool { seen = append(seen, string(b)); return string(b) == "match" }) {
		t.Fatal("no match")
	}
	s.Scan(l, func(b []byte) bool { seen = append(seen, string(b)); return false })
	if strings.Join(seen, ",") != "a,match,b,c" {
		t.Errorf("seen %q", seen)
	}
}

// Output evicted before it was scanned is skipped, not misread.
func TestLineScanAfterEviction(t *testing.T) {
	l := New(16)
	var s LineScan
	l.Append(Stdout, []byte("0123456789abcdef\nkept line\n"))
	var seen []string
	s.Scan(l, func(b []byte) bool { seen = append(seen, string(b)); return false })
	if len(seen) == 0 || seen[len(seen)-1] != "kept line" {
		t.Errorf("seen %q", seen)
	}
}

// With a needle, every line holding it is still seen, however the output
// is chunked: a needle split across two chunks included.
func TestLineScanNeedle(t *testing.T) {
	text := "no url here\nsee http://a.example/x now\nplain\nthen https://b.example/ and more\ntail"
	want := []string{"see http://a.example/x now", "then https://b.example/ and more"}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 500 {
		l := New(1 << 20)
		s := LineScan{Needle: []byte("://")}
		var got []string
		scan := func() {
			s.Scan(l, func(b []byte) bool {
				if bytes.Contains(b, s.Needle) {
					got = append(got, string(b))
				}
				return false
			})
		}
		for rest := text; rest != ""; {
			n := min(1+rng.IntN(5), len(rest))
			l.Append(Stdout, []byte(rest[:n]))
			rest = rest[n:]
			if rng.IntN(2) == 0 {
				scan()
			}
		}
		scan()
		if !slices.Equal(got, want) {
			t.Fatalf("lines %q, want %q", got, want)
		}
	}
}

// A line that never ends costs a lineScan at most about maxLine, whether
// the scan looks at every chunk or skips those without its needle.
func TestLineScanLongLineMemory(t *testing.T) {
	for _, needle := range [][]byte{nil, []byte("://")} {
		l := New(1 << 20)
		s := LineScan{Needle: needle}
		chunk := []byte(strings.Repeat("x", 300<<10))
		for range 20 {
			l.Append(Stdout, chunk)
			s.Scan(l, func([]byte) bool { return false })
			if c := cap(s.Partial[0]); c > 2*MaxLine {
				t.Fatalf("needle %q: the unfinished line holds %d bytes, want at most %d", needle, c, 2*MaxLine)
			}
		}
		if len(s.Partial[0]) != MaxLine {
			t.Errorf("needle %q: kept %d bytes of the line, want the last %d", needle, len(s.Partial[0]), MaxLine)
		}
	}
}
