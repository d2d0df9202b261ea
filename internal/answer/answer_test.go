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
	o := session.Output{Stdout: []byte("\x00\x01bin"), Omitted: &outlog.Omission{From: 5, To: 9, Bytes: 4, Lines: 1}}
	stdout, _, f := Text(o)
	if stdout != "" || !f.Binary || *f.Bytes != 5 || f.Omitted == nil || *f.Omitted != (wire.Omitted{FromSeq: 5, ToSeq: 9, Bytes: 4, Lines: 1}) {
		t.Errorf("binary answer: %q %+v", stdout, f)
	}
	stdout, _, f = Text(session.Output{Stdout: []byte("ok\xff")})
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
		stdout, _, of := Text(session.Output{Stdout: b})
		if !utf8.ValidString(stdout) {
			t.Fatalf("invalid UTF-8 in the answer: %q", stdout)
		}
		if of.Binary != outlog.IsBinary(b) || of.Binary && (stdout != "" || *of.Bytes != int64(len(b))) {
			t.Fatalf("binary %v for %q: %q %+v", outlog.IsBinary(b), b, stdout, of)
		}
		if utf8.Valid(b) && !strings.Contains(string(b), "\x00") && of.Binary {
			t.Fatalf("valid text called binary: %q", b)
		}
	})
}
