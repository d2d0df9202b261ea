package screen

import (
	"bytes"
	"strings"
	"testing"
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
		{"two ESCs", "\x1b\x1b[1mx", "\x1b\x1b[1mx"},
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

func TestStripperFlush(t *testing.T) {
	var s Stripper
	if got := string(s.Flush(s.Write(nil, []byte("x\x1b")))); got != "x\x1b" {
		t.Errorf("a lone ESC at the end: %q", got)
	}
	if got := string(s.Flush(s.Write(nil, []byte("x\x1b]0;unfinished")))); got != "x" {
		t.Errorf("an unfinished string at the end: %q", got)
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
		for _, intro := range []string{"\x1b]", "\x1bP", "\x1b_", "\x1b^", "\x1bX"} {
			if bytes.Contains(want, []byte(intro)) && !bytes.Contains(in, []byte("\x1b\x1b")) && len(in) <= StringCap {
				t.Fatalf("%q survived in %q from %q", intro, want, in)
			}
		}
	})
}
