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
