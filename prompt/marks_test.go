package prompt

import (
	"bytes"
	"fmt"
	"testing"
)

var markCases = []struct {
	name  string
	in    string
	out   string
	marks string // each mark as code:kind:args@pos, space-separated
}{
	{"plain", "hello\n", "hello\n", ""},
	{"bel", "a\x1b]133;A\x07$ \x1b]133;B\x07", "a$ ", "133:A:@1 133:B:@3"},
	{"st", "\x1b]133;D;0\x1b\\x", "x", "133:D:0@0"},
	{"633", "\x1b]633;P;Cwd=/tmp\x07\x1b]633;E;ls -l;n1\x07", "", "633:P:Cwd=/tmp@0 633:E:ls -l;n1@0"},
	{"exit code", "out\n\x1b]133;D;127\x07", "out\n", "133:D:127@4"},
	{"options", "\x1b]133;A;aid=3;cl=m\x07", "", "133:A:aid=3;cl=m@0"},
	{"other osc passes", "\x1b]0;title\x07x", "\x1b]0;title\x07x", ""},
	{"osc 1330 passes", "\x1b]1330;A\x07", "\x1b]1330;A\x07", ""},
	{"csi passes", "\x1b[1;31mred\x1b[0m", "\x1b[1;31mred\x1b[0m", ""},
	{"esc esc", "\x1b\x1b]133;B\x07", "\x1b", "133:B:@1"},
	{"esc ends body", "\x1b]133;C\x1b[0m", "\x1b[0m", "133:C:@0"},
	{"lone esc at end", "abc\x1b", "abc", ""}, // held until more comes
	{"unterminated at end", "\x1b]133;A", "", ""},
	{"utf8 around", "é\x1b]133;B\x07€", "é€", "133:B:@2"},
}

func fmtMarks(ms []Mark) string {
	var b bytes.Buffer
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%d:%c:%s@%d", m.Code, m.Kind, m.Args, m.Pos)
	}
	return b.String()
}

func TestScanner(t *testing.T) {
	for _, tc := range markCases {
		t.Run(tc.name, func(t *testing.T) {
			var s Scanner
			out, marks := s.Write(nil, []byte(tc.in), nil)
			if string(out) != tc.out {
				t.Errorf("text %q, want %q", out, tc.out)
			}
			if got := fmtMarks(marks); got != tc.marks {
				t.Errorf("marks %q, want %q", got, tc.marks)
			}
		})
	}
}

// TestScannerSplit checks that no split of the input changes the text or
// the marks: every 2-way split and 1-byte writes.
func TestScannerSplit(t *testing.T) {
	for _, tc := range markCases {
		var whole Scanner
		wantOut, wantMarks := whole.Write(nil, []byte(tc.in), nil)
		wantOut = whole.Flush(wantOut)
		want := fmtMarks(wantMarks)
		for k := 0; k <= len(tc.in); k++ {
			var s Scanner
			out, marks := s.Write(nil, []byte(tc.in[:k]), nil)
			out, marks = s.Write(out, []byte(tc.in[k:]), marks)
			out = s.Flush(out)
			if string(out) != string(wantOut) || fmtMarks(marks) != want {
				t.Errorf("%s split at %d: %q %s, want %q %s", tc.name, k, out, fmtMarks(marks), wantOut, want)
			}
		}
		var s Scanner
		var out []byte
		var marks []Mark
		for i := range len(tc.in) {
			out, marks = s.Write(out, []byte{tc.in[i]}, marks)
		}
		out = s.Flush(out)
		if string(out) != string(wantOut) || fmtMarks(marks) != want {
			t.Errorf("%s byte by byte: %q %s, want %q %s", tc.name, out, fmtMarks(marks), wantOut, want)
		}
	}
}

func TestMarkFields(t *testing.T) {
	tests := []struct {
		m        Mark
		code     int
		hasCode  bool
		key, val string
		hasProp  bool
	}{
		{Mark{Kind: 'D', Args: "0"}, 0, true, "", "", false},
		{Mark{Kind: 'D', Args: "130;aid=2"}, 130, true, "", "", false},
		{Mark{Kind: 'D'}, 0, false, "", "", false},
		{Mark{Kind: 'D', Args: "x"}, 0, false, "", "", false},
		{Mark{Kind: 'P', Args: "k=s"}, 0, false, "k", "s", true},
		{Mark{Kind: 'P', Args: "Cwd=/a=b"}, 0, false, "Cwd", "/a=b", true},
		{Mark{Kind: 'P', Args: "k=s"}, 0, false, "Cwd", "", false},
	}
	for _, tt := range tests {
		code, ok := tt.m.ExitCode()
		if code != tt.code || ok != tt.hasCode {
			t.Errorf("%+v ExitCode = %d, %v", tt.m, code, ok)
		}
		if tt.key != "" {
			v, ok := tt.m.Property(tt.key)
			if v != tt.val || ok != tt.hasProp {
				t.Errorf("%+v Property(%s) = %q, %v", tt.m, tt.key, v, ok)
			}
		}
	}
}

func TestScannerLongBody(t *testing.T) {
	in := "\x1b]133;A;" + string(bytes.Repeat([]byte("x"), maxMark)) + "\x07tail"
	var s Scanner
	out, marks := s.Write(nil, []byte(in), nil)
	if len(marks) != 0 || string(out) != in {
		t.Errorf("an over-long mark must pass through as output; got %d marks, %d bytes", len(marks), len(out))
	}
}

// FuzzScanner: for any input the result does not depend on how the input
// is split, and the scanner never invents output.
func FuzzScanner(f *testing.F) {
	for _, tc := range markCases {
		f.Add([]byte(tc.in), uint16(len(tc.in)/2))
	}
	f.Fuzz(func(t *testing.T, in []byte, cut uint16) {
		var whole Scanner
		want, wantMarks := whole.Write(nil, in, nil)
		want = whole.Flush(want)
		k := int(cut) % (len(in) + 1)
		var s Scanner
		got, marks := s.Write(nil, in[:k], nil)
		got, marks = s.Write(got, in[k:], marks)
		got = s.Flush(got)
		if !bytes.Equal(got, want) || fmtMarks(marks) != fmtMarks(wantMarks) {
			t.Fatalf("split at %d of %q: %q %s, want %q %s", k, in, got, fmtMarks(marks), want, fmtMarks(wantMarks))
		}
		if len(got) > len(in) {
			t.Fatalf("text %q longer than input %q", got, in)
		}
	})
}
