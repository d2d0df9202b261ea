package answer

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/yieldshell/yieldshell/internal/outlog"
	"github.com/yieldshell/yieldshell/internal/session"
	"github.com/yieldshell/yieldshell/internal/wire"
)

func TestAnswerText(t *testing.T) {
	// The reader stored "\x00\x01bin" as a binary part (session): the
	// answer follows the log's verdict, whatever its text.
	o := session.Output{Stdout: []byte("ok\n"), Binary: []outlog.Part{{From: 0, To: 5}}, Omitted: &outlog.Omission{From: 5, To: 9, Bytes: 4, Lines: 1}}
	stdout, _, f := Text(o)
	if stdout != "ok\n" || !f.Binary || *f.Bytes != 5 || len(f.BinaryParts) != 1 || f.Omitted == nil || *f.Omitted != (wire.Omitted{FromSeq: 5, ToSeq: 9, Bytes: 4, Lines: 1}) {
		t.Errorf("binary answer: %q %+v", stdout, f)
	}
	stdout, _, f = Text(session.Output{Stdout: []byte("ok\xff")})
	if stdout != "ok\uFFFD" || f.Binary || f.Bytes != nil || f.Omitted != nil {
		t.Errorf("text answer: %q %+v", stdout, f)
	}
}

// The text an answer carries is always valid UTF-8, and binary says
// whether the log held binary parts (issue 39 item 4: binary output is
// judged once, by the reader, and the answer does not judge it again).
func FuzzIsBinary(f *testing.F) {
	for _, s := range []string{"", "text\n", "a\x00b", "bad:\xff\xfe\xc3(end\n", strings.Repeat("\xff", 100), strings.Repeat("é", 40)} {
		f.Add([]byte(s), false)
	}
	f.Fuzz(func(t *testing.T, b []byte, parts bool) {
		o := session.Output{Stdout: b}
		if parts {
			o.Binary = []outlog.Part{{From: 0, To: 7}}
		}
		stdout, _, of := Text(o)
		if !utf8.ValidString(stdout) {
			t.Fatalf("invalid UTF-8 in the answer: %q", stdout)
		}
		if of.Binary != parts || parts && *of.Bytes != 7 || !parts && of.Bytes != nil {
			t.Fatalf("binary %v for parts %v: %+v", of.Binary, parts, of)
		}
		if stdout != strings.ToValidUTF8(string(b), "\uFFFD") {
			t.Fatalf("text %q answered as %q", b, stdout)
		}
	})
}
