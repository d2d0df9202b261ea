package tools

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/yieldshell/yieldshell/internal/outlog"
	"github.com/yieldshell/yieldshell/internal/session"
)

func TestIsBinary(t *testing.T) {
	elf := "\x7fELF\x02\x01\x01\x00" + strings.Repeat("\x00\x01\xfe", 30)
	for _, tc := range []struct {
		name string
		in   string
		want bool
	}{
		{"empty", "", false},
		{"text", "hello\nworld\n", false},
		{"unicode", strings.Repeat("héllo wörld € ", 10), false},
		{"a NUL", "abc\x00def", true},
		{"an executable", elf, true},
		{"a few stray bytes in short text", "bad:\xff\xfe\xc3(end\n", false},
		{"a Latin-1 name in long text", strings.Repeat("plain ascii text ", 10) + "Jos\xe9\n", false},
		{"mostly invalid", strings.Repeat("\xff\xfe\x80a", 30), true},
		{"escape sequences are text", strings.Repeat("\x1b[31mred\x1b[0m\n", 10), false},
	} {
		if got := isBinary([]byte(tc.in)); got != tc.want {
			t.Errorf("%s: isBinary = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestAnswerText(t *testing.T) {
	o := session.Output{Stdout: []byte("\x00\x01bin"), Omitted: &outlog.Omission{From: 5, To: 9, Bytes: 4, Lines: 1}}
	stdout, _, f := answerText(o)
	if stdout != "" || !f.Binary || *f.Bytes != 5 || f.Omitted == nil || *f.Omitted != (Omitted{FromSeq: 5, ToSeq: 9, Bytes: 4, Lines: 1}) {
		t.Errorf("binary answer: %q %+v", stdout, f)
	}
	stdout, _, f = answerText(session.Output{Stdout: []byte("ok\xff")})
	if stdout != "ok\uFFFD" || f.Binary || f.Omitted != nil {
		t.Errorf("text answer: %q %+v", stdout, f)
	}
}

// The text an answer carries is always valid UTF-8, or binary says why not.
func FuzzIsBinary(f *testing.F) {
	for _, s := range []string{"", "text\n", "a\x00b", "bad:\xff\xfe\xc3(end\n", strings.Repeat("\xff", 100), strings.Repeat("é", 40)} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		stdout, _, of := answerText(session.Output{Stdout: b})
		if !utf8.ValidString(stdout) {
			t.Fatalf("invalid UTF-8 in the answer: %q", stdout)
		}
		if of.Binary != isBinary(b) || of.Binary && (stdout != "" || *of.Bytes != int64(len(b))) {
			t.Fatalf("binary %v for %q: %q %+v", isBinary(b), b, stdout, of)
		}
		if utf8.Valid(b) && !strings.Contains(string(b), "\x00") && of.Binary {
			t.Fatalf("valid text called binary: %q", b)
		}
	})
}
