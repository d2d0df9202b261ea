package human

import (
	"net/url"
	"testing"
)

// FuzzParseForm checks the in-place form parser against net/url's: where
// both accept a body, they read the same action and secret.
func FuzzParseForm(f *testing.F) {
	for _, s := range []string{
		"secret=pw&action=submit", "action=decline", "secret=a+b%20c%26d", "secret=", "secret",
		"secret=%zz", "secret=a&secret=b", "&&secret=x&", "x=1&secret=%E2%9C%93", "secret=%",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		buf := []byte(body)
		got, ok := parseForm(buf)
		want, err := url.ParseQuery(body)
		if err != nil || len(want["secret"]) > 1 || len(want["action"]) > 1 {
			return // net/url refuses it, or it repeats a field (ours refuses)
		}
		if !ok {
			t.Fatalf("parseForm refused %q, net/url read %v", body, want)
		}
		if got.hasSecret != want.Has("secret") || string(got.secret) != want.Get("secret") || string(got.action) != want.Get("action") {
			t.Fatalf("%q: got secret %q (%v) action %q; want %v", body, got.secret, got.hasSecret, got.action, want)
		}
	})
}
