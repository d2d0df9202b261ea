package screen

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestStripper(t *testing.T) {
	long := "\x1b]0;" + strings.Repeat("t", StringCap+10) + "\x07after"
	tests := []struct{ name, in, want string }{
		{"plain", "hello\nworld", "hello\nworld"},
		{"colours kept", "\x1b[31mred\x1b[0m", "\x1b[31mred\x1b[0m"},
		{"clipboard, BEL", "a\x1b]52;c;ZXZpbA==\x07b", "ab"},
		{"title, ST", "a\x1b]2;pwned\x1b\\b", "ab"},
		{"hyperlink", "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"DCS", "a\x1bP1$r0m\x1b\\b", "ab"},
		{"APC, PM, SOS", "\x1b_x\x1b\\\x1b^y\x1b\\\x1bXz\x1b\\.", "."},
		{"BEL does not end a DCS", "\x1bPq\x07#\x1b\\x", "x"},
		{"CAN cancels", "\x1b]0;t\x18x", "x"},
		{"ESC ends a string and starts a sequence", "\x1b]0;t\x1b[1mx", "\x1b[1mx"},
		{"two ESCs: the second aborts the first", "\x1b\x1b[1mx", "\x1b[1mx"},
		{"no introducer made of what is left", "\x1b\x1b]0;x\x07]52;c;eA==\x07", "]52;c;eA==\x07"},
		{"other escapes kept", "\x1b7\x1b(B\x1bM", "\x1b7\x1b(B\x1bM"},
		{"runaway string gives up", long, strings.Repeat("t", 12) + "\x07after"}, // "0;" counts
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s Stripper
			if got := string(s.Flush(s.Write(nil, []byte(tt.in)))); got != tt.want {
				t.Errorf("whole: %q, want %q", trim(got), trim(tt.want))
			}
			// Byte by byte: a string split across writes is removed whole.
			var b Stripper
			var got []byte
			for i := range len(tt.in) {
				got = b.Write(got, []byte(tt.in[i:i+1]))
			}
			if got := string(b.Flush(got)); got != tt.want {
				t.Errorf("byte by byte: %q, want %q", trim(got), trim(tt.want))
			}
		})
	}
}

// 8-bit C1 controls and C1 controls encoded in UTF-8 pass no more than
// their 7-bit forms (issue 30 item 7): a terminal in 8-bit mode reads 0x9D
// as OSC, xterm in UTF-8 mode reads U+009D as OSC. Bytes 0x80–0x9F that
// continue a valid UTF-8 character are text, split across writes or not.
func TestStripperDropsC1Controls(t *testing.T) {
	long := "\x9d0;" + strings.Repeat("t", StringCap+10) + "\x07after"
	tests := []struct{ name, in, want string }{
		{"8-bit OSC clipboard, BEL", "a\x9d52;c;ZXZpbA==\x07b", "ab"},
		{"8-bit OSC, 8-bit ST", "a\x9d2;pwned\x9cb", "ab"},
		{"8-bit OSC, 7-bit ST", "a\x9d2;pwned\x1b\\b", "ab"},
		{"7-bit OSC, 8-bit ST", "a\x1b]2;pwned\x9cb", "ab"},
		{"8-bit DCS, SOS, PM, APC", "\x90q\x9c\x98x\x9c\x9ey\x9c\x9fz\x9c.", "."},
		{"8-bit CSI dropped", "a\x9b31mb", "a31mb"},
		{"other 8-bit controls dropped", "a\x84\x85\x8d\x8e\x8f\x9a\x80\x99b", "ab"},
		{"8-bit ST alone dropped", "a\x9cb", "ab"},
		{"UTF-8 OSC clipboard", "a\u009d52;c;ZXZpbA==\u009cb", "ab"},
		{"UTF-8 OSC, BEL", "a\u009d0;title\x07b", "ab"},
		{"UTF-8 CSI dropped", "a\u009b2Jb", "a2Jb"},
		{"UTF-8 DCS, APC", "\u0090x\u009c\u009fy\u009c.", "."},
		{"every UTF-8 C1", "<\u0080\u0081\u0085\u008d\u0096\u009a>", "<>"},
		{"continuation bytes are text", "é ✜ 😀 Ü ŝ ◜", "é ✜ 😀 Ü ŝ ◜"},
		{"NBSP and Latin-1 kept", "\u00a0¡ÿ", "\u00a0¡ÿ"},
		{"a C1 byte after an unfinished character", "\xe2\x9cA", "\xe2A"},
		{"C1 bytes after a broken 4-byte character", "\xf0\x9f\x98A\x9cB", "\xf0B"}, // 0x9F is APC
		{"invalid bytes above 0x9f kept", "\xa0\xff\xc0", "\xa0\xff\xc0"},
		{"a lone C2 kept", "\xc2A", "\xc2A"},
		{"UTF-8 in a string is payload", "\x1b]0;✜ é\x07x", "x"},
		{"ESC before a character", "\x1bé", "\x1bé"},
		{"ESC before a C1", "\x1b\x9d0;t\x07x", "x"},
		{"ESC, a dropped C1, an introducer's letter", "\x1b\x8cX0", "X0"},
		{"ESC before an unfinished character", "\x1b\xc3", "\x1b\xc3"},
		{"runaway 8-bit string gives up", long, strings.Repeat("t", 12) + "\x07after"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s Stripper
			if got := string(s.Flush(s.Write(nil, []byte(tt.in)))); got != tt.want {
				t.Errorf("whole: %q, want %q", trim(got), trim(tt.want))
			}
			for _, size := range []int{1, 2, 3} {
				var b Stripper
				var got []byte
				for i := 0; i < len(tt.in); i += size {
					got = b.Write(got, []byte(tt.in[i:min(i+size, len(tt.in))]))
				}
				if got := string(b.Flush(got)); got != tt.want {
					t.Errorf("in writes of %d: %q, want %q", size, trim(got), trim(tt.want))
				}
			}
		})
	}
}

func TestStripperFlush(t *testing.T) {
	var s Stripper
	if got := string(s.Flush(s.Write(nil, []byte("x\x1b")))); got != "x\x1b" {
		t.Errorf("a lone ESC at the end: %q", got)
	}
	if got := string(s.Flush(s.Write(nil, []byte("x\x1b]0;unfinished")))); got != "x" {
		t.Errorf("an unfinished string at the end: %q", got)
	}
	if got := string(s.Flush(s.Write(nil, []byte("x\xe2\x9c")))); got != "x\xe2" {
		t.Errorf("an unfinished character at the end: %q", got)
	}
	if got := string(s.Flush(s.Write(nil, []byte("x\xc2")))); got != "x\xc2" {
		t.Errorf("an unfinished C2 at the end: %q", got)
	}
	if got := string(s.Write(nil, []byte("y"))); got != "y" {
		t.Errorf("after Flush: %q", got)
	}
}

func trim(s string) string {
	if len(s) > 80 {
		return s[:40] + "..." + s[len(s)-20:]
	}
	return s
}

// FuzzStripper: whatever the input and however it is split, the output is
// the same, no longer than the input, and never holds a control string's
// introducer.
func FuzzStripper(f *testing.F) {
	f.Add([]byte("a\x1b]52;c;x\x07b\x1bP\x1b\\\x1b[1m"), 3)
	f.Add([]byte("\x1b\x1b]\x1b\\\x1b"), 1)
	f.Add([]byte("a\x9d52;c;x\x9cb\xc2\x9d0;t\xc2\x9c\x9b1m"), 1)
	f.Add([]byte("é✜\xe2\x9cA\xf0\x9f\x98\x9c\xc2"), 2)
	f.Add([]byte("\x90q\x1b\\\x1b\xc2\x9f\x07\x9e\x18"), 3)
	f.Fuzz(func(t *testing.T, in []byte, split int) {
		var whole, parts Stripper
		want := whole.Flush(whole.Write(nil, in))
		var got []byte
		if split = max(split, 1); split > len(in) {
			split = len(in)
		}
		for i := 0; i < len(in); i += split {
			got = parts.Write(got, in[i:min(i+split, len(in))])
		}
		got = parts.Flush(got)
		if !bytes.Equal(got, want) {
			t.Fatalf("split by %d: %q, whole: %q", split, got, want)
		}
		if len(want) > len(in) {
			t.Fatalf("output longer than input: %q from %q", want, in)
		}
		for i := 0; i < len(want); {
			r, size := utf8.DecodeRune(want[i:])
			if r >= 0x80 && r <= 0x9f || r == utf8.RuneError && size == 1 && want[i] >= 0x80 && want[i] <= 0x9f {
				t.Fatalf("a C1 control at %d of %q from %q", i, want, in)
			}
			i += size
		}
		for _, intro := range []string{"\x1b]", "\x1bP", "\x1b_", "\x1b^", "\x1bX"} {
			if bytes.Contains(want, []byte(intro)) && len(in) <= StringCap {
				t.Fatalf("%q survived in %q from %q", intro, want, in)
			}
		}
	})
}

// TakeHeld hands over what the Stripper held back, unchanged, and starts
// over in text: binary output that bypasses the Stripper begins with it.
func TestStripperTakeHeld(t *testing.T) {
	for _, tc := range []struct{ in, out, held string }{
		{"text\x1b", "text", "\x1b"},
		{"caf\xc3", "caf", "\xc3"},
		{"a\xe2\x82", "a", "\xe2\x82"},
		{"x\x1b]52;c;aGk=", "x", ""}, // inside a control string: dropped
		{"plain", "plain", ""},
	} {
		var s Stripper
		out := s.Write(nil, []byte(tc.in))
		held := s.TakeHeld(nil)
		if string(out) != tc.out || string(held) != tc.held {
			t.Errorf("%q: wrote %q held %q, want %q %q", tc.in, out, held, tc.out, tc.held)
		}
		// Starting over: what follows is text, not the end of a sequence.
		if got := string(s.Write(nil, []byte("]0;t\a ok"))); got != "]0;t\a ok" {
			t.Errorf("%q: after TakeHeld, %q", tc.in, got)
		}
	}
}

// textEnd, eight bytes at a time, finds the same byte as one at a time.
func TestTextEnd(t *testing.T) {
	slow := func(p []byte) int {
		for i, b := range p {
			if b == esc || b >= 0x80 {
				return i
			}
		}
		return len(p)
	}
	base := []byte("0123456789abcdef0123456789abcdef\x00\x01\x1a\x1c\x7f")
	for n := range len(base) + 1 {
		for at := -1; at < n; at++ {
			for _, c := range []byte{esc, 0x80, 0x9b, 0xff, 0x1a, 0x00} {
				p := append([]byte(nil), base[:n]...)
				if at >= 0 {
					p[at] = c
				}
				if got, want := textEnd(p), slow(p); got != want {
					t.Fatalf("textEnd(%q) = %d, want %d", p, got, want)
				}
			}
		}
	}
}

// Invalid counts the bytes of text that are not UTF-8, as outlog's
// judgement does, but not those inside control strings it drops.
func TestStripperInvalid(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want int
	}{
		{[]string{"plain ascii"}, 0},
		{[]string{"héllo € 日本語 🙂"}, 0},
		{[]string{"\xff\xfe", "a\x80"}, 3},
		{[]string{"caf\xc3", "\xa9 ok"}, 0},    // a character split between writes
		{[]string{"caf\xc3", "x"}, 1},          // an unfinished one, then not
		{[]string{"\x9b2J\xc2\x9b"}, 1},        // an 8-bit CSI; U+009B is a character
		{[]string{"\x1b]0;\xff\xfe\a\xff"}, 1}, // inside an OSC: dropped, not counted
	} {
		var s Stripper
		for _, w := range tc.in {
			s.Write(nil, []byte(w))
		}
		if got := s.Invalid(); got != tc.want {
			t.Errorf("%q: Invalid = %d, want %d", tc.in, got, tc.want)
		}
	}
}
