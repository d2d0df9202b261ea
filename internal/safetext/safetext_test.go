package safetext

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestVisible(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"make test", "make test"},
		{"échec ✓ 日本", "échec ✓ 日本"},
		{"echo \x1b]0;pwned\x07", `echo \x1b]0;pwned\x07`},
		{"printf '\x1b[2J\x1b[H'", `printf '\x1b[2J\x1b[H'`},
		{"a\tb\nc\rd", `a\tb\nc\rd`},
		{"del\x7f", `del\x7f`},
		{"csi \u009b31m 8-bit", `csi \u009b31m 8-bit`},
		{"bad \xff\xfe utf-8", `bad \xff\xfe utf-8`},
		{"rm -rf \u202e/ exe.txt", `rm -rf \u202e/ exe.txt`},
	} {
		if got := Visible(tc.in); got != tc.want {
			t.Errorf("Visible(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func FuzzVisible(f *testing.F) {
	f.Add("echo \x1b[31mred\u009b\xff")
	f.Fuzz(func(t *testing.T, s string) {
		v := Visible(s)
		if strings.IndexFunc(v, unsafe) >= 0 || !utf8.ValidString(v) || !strings.ContainsRune(v, '\\') && v != s {
			t.Errorf("Visible(%q) = %q", s, v)
		}
	})
}

func TestLines(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"line one\n\tline two\n", "line one\n\tline two\n"},
		{"a\x1b[2Jb\x1b[6nc\n", `a\x1b[2Jb\x1b[6nc` + "\n"},
		{"c1 \u009b2J \u0090q\u009c\n", `c1 \u009b2J \u0090q\u009c` + "\n"},
		{"cr\rover\n", `cr\rover` + "\n"},
		{"bad \xff\n", `bad \xff` + "\n"},
	} {
		if got := Lines(tc.in); got != tc.want {
			t.Errorf("Lines(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
