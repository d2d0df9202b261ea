package screen

import (
	"bytes"
	"testing"
	"unicode/utf8"
)

// FuzzCleaner checks the properties the log relies on, for any input:
//   - no panic;
//   - the output is valid UTF-8;
//   - it holds no control characters except "\n" (no ESC, no TAB, no C1);
//   - it does not depend on how the input is split across Writes;
//   - flushing after every chunk still yields valid UTF-8 and no controls.
//
// The seeds (the table inputs and f.Add below) run in every go test.
func FuzzCleaner(f *testing.F) {
	for _, tc := range cleanCases {
		if len(tc.in) < 2000 {
			f.Add([]byte(tc.in), uint16(len(tc.in)/2))
		}
	}
	f.Add([]byte("\x1b[-1@\x1b[-1P\x1b[2147483647Z\x1b[100000000I"), uint16(3))
	f.Add([]byte("\x1b]133;A\x07$ \x1b]133;B\x07\x1b]633;D;0\x1b\\"), uint16(9))
	f.Add([]byte("é€😀中\xe2\x82\xff\xf0\x9f\x98"), uint16(5))
	f.Add([]byte("\x1b[?1049h\x1b[H\x1b[2Jtop\x1b[?1049l\r\n"), uint16(7))
	f.Add([]byte("abc\x1b7\x1b[24;1Hstatus\x1b8\x1b[3Axy\x1b[3B\n"), uint16(11))

	f.Fuzz(func(t *testing.T, in []byte, cut uint16) {
		whole := NewCleaner(80)
		want := whole.Close(whole.Write(nil, in))
		checkClean(t, in, want)

		k := int(cut) % (len(in) + 1)
		split := NewCleaner(80)
		got := split.Write(nil, in[:k])
		got = split.Write(got, in[k:])
		got = split.Close(got)
		if !bytes.Equal(got, want) {
			t.Fatalf("split at %d of %q:\n got %q\nwant %q", k, in, got, want)
		}

		// Small chunks with a Flush after each: different text (intermediate
		// states), same guarantees.
		fl := NewCleaner(80)
		var out []byte
		step := int(cut)%7 + 1
		for i := 0; i < len(in); i += step {
			out = fl.Write(out, in[i:min(i+step, len(in))])
			out = fl.Flush(out)
		}
		checkClean(t, in, fl.Close(out))
	})
}

func checkClean(t *testing.T, in, out []byte) {
	t.Helper()
	if !utf8.Valid(out) {
		t.Fatalf("invalid UTF-8 for %q: %q", in, out)
	}
	for _, r := range string(out) {
		if (r < 0x20 && r != '\n') || (r >= 0x7f && r < 0xa0) {
			t.Fatalf("control %U in output for %q: %q", r, in, out)
		}
	}
}

// FuzzTerminal drives a small deferred terminal with any input, committing
// and reading Pending along the way, and checks:
//   - no panic;
//   - the log and Pending are valid UTF-8 without controls other than "\n";
//   - memory stays bounded: rows no wider than the terminal, the cursor and
//     scroll region inside it, replies held within ReplyCap;
//   - Pending is exactly what the next Commit appends.
func FuzzTerminal(f *testing.F) {
	for _, tc := range cleanCases {
		if len(tc.in) < 2000 {
			f.Add([]byte(tc.in), uint8(7), uint8(3))
		}
	}
	f.Add([]byte("\x1b[2;3r\x1b[?6h\x1b[9;9H\x1b[5L\x1b[3M\x1b[2S\x1b[4T\x1bM\x1b[6n\x1b[?1$p"), uint8(5), uint8(4))
	f.Add([]byte("中文😀e\u0301\x1b[3b\x1b[1;4H中\x1b[2@\x1b[P\x1b(0lqk"), uint8(3), uint8(2))
	f.Add([]byte("\x1b]10;?\x07\x1b]11;?\x1b\\\x1b[c\x1b[>c\x1b[>q\x1b[?u"), uint8(10), uint8(2))

	f.Fuzz(func(t *testing.T, in []byte, cols, rows uint8) {
		c := NewTerminal(int(cols%40)+1, int(rows%12)+1)
		var log []byte
		for i := 0; i < len(in); i += 5 {
			log = c.Write(log, in[i:min(i+5, len(in))])
			if in[i]%3 == 0 {
				p := c.Pending(nil)
				n := len(log)
				log = c.Commit(log)
				if string(log[n:]) != string(p) {
					t.Fatalf("Pending %q, Commit appended %q", p, log[n:])
				}
			}
			if c.cx < 0 || c.cx >= c.cols || c.cy < 0 || c.cy >= c.rows || c.top < 0 || c.bot >= c.rows || c.top >= c.bot && c.rows > 1 {
				t.Fatalf("cursor %d,%d region %d..%d in %dx%d", c.cx, c.cy, c.top, c.bot, c.cols, c.rows)
			}
			for y := range c.rows {
				if n := len(c.row(y).cells); n > c.cols {
					t.Fatalf("row %d has %d cells, cols %d", y, n, c.cols)
				}
			}
			if len(c.replies) > ReplyCap {
				t.Fatalf("%d bytes of replies", len(c.replies))
			}
		}
		checkClean(t, in, c.Close(log))
	})
}
