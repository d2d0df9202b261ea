package policy

import "testing"

// A redactor that learns a secret mid-stream keeps what it held back and
// its old replacements, and redacts the new secret from then on, even
// split across writes.
func TestRedactorExtend(t *testing.T) {
	r := NewRedactor([]Secret{{Name: "API_TOKEN", Value: "tok-123456789"}})
	out := r.Write(nil, []byte("a tok-1234"))
	r = r.Extend([]Secret{{Name: "ask_human", Value: "s3cret pass"}})
	out = r.Write(out, []byte("56789 b s3cr"))
	out = r.Write(out, []byte("et pass c"))
	out = r.Flush(out)
	if want := "a [REDACTED:API_TOKEN] b [REDACTED:ask_human] c"; string(out) != want {
		t.Errorf("got %q, want %q", out, want)
	}
	var nilR *Redactor
	if got := nilR.Extend([]Secret{{Name: "x", Value: "xyz"}}).Flush(nilR.Extend([]Secret{{Name: "x", Value: "xyz"}}).Write(nil, []byte("1xyz2"))); string(got) != "1[REDACTED:x]2" {
		t.Errorf("from nil: %q", got)
	}
}
