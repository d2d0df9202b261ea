package policy

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// naiveRedact is the specification the streaming Redactor must match: at
// each position, replace the longest secret that starts there, else keep the
// byte. Duplicate values keep the first name after a stable length sort, as
// NewRedactor does.
func naiveRedact(secrets []Secret, in []byte) []byte {
	s := slices.Clone(secrets)
	slices.SortStableFunc(s, func(a, b Secret) int { return len(b.Value) - len(a.Value) })
	var out []byte
next:
	for i := 0; i < len(in); {
		for _, sec := range s {
			if sec.Value != "" && bytes.HasPrefix(in[i:], []byte(sec.Value)) {
				out = append(out, "[REDACTED:"+sec.Name+"]"...)
				i += len(sec.Value)
				continue next
			}
		}
		out = append(out, in[i])
		i++
	}
	return out
}

func oneShot(secrets []Secret, in []byte) []byte {
	r := NewRedactor(secrets)
	return r.Flush(r.Write(nil, in))
}

// feed writes in through a fresh redactor in the given chunk sizes, checking
// the hold-back bound after each write.
func feed(t testing.TB, secrets []Secret, in []byte, sizes func() int) []byte {
	r := NewRedactor(secrets)
	var out []byte
	for len(in) > 0 {
		n := min(sizes(), len(in))
		out = r.Write(out, in[:n])
		in = in[n:]
		if r.maxLen > 0 && len(r.held) >= r.maxLen {
			t.Fatalf("held %d bytes, longest secret is %d", len(r.held), r.maxLen)
		}
	}
	return r.Flush(out)
}

var redactCases = []struct {
	name    string
	secrets []Secret
	in      string
	want    string
}{
	{"no secrets", nil, "hello world", "hello world"},
	{"middle", []Secret{{"TOKEN", "s3cr3t-value"}}, "a s3cr3t-value b", "a [REDACTED:TOKEN] b"},
	{"stream start", []Secret{{"TOKEN", "s3cr3t-value"}}, "s3cr3t-value tail", "[REDACTED:TOKEN] tail"},
	{"stream end", []Secret{{"TOKEN", "s3cr3t-value"}}, "head s3cr3t-value", "head [REDACTED:TOKEN]"},
	{"whole stream", []Secret{{"TOKEN", "s3cr3t-value"}}, "s3cr3t-value", "[REDACTED:TOKEN]"},
	{"adjacent", []Secret{{"T", "abcdefgh"}}, "abcdefghabcdefgh", "[REDACTED:T][REDACTED:T]"},
	{"prefix only at end", []Secret{{"T", "abcdefgh"}}, "xx abcdefg", "xx abcdefg"},
	{"false start then match", []Secret{{"T", "aaaaaaab"}}, "aaaaaaaaab", "aa[REDACTED:T]"},
	{"longest wins at a position", []Secret{{"SHORT", "abcdefgh"}, {"LONG", "abcdefgh1234"}},
		"abcdefgh1234 abcdefgh123", "[REDACTED:LONG] [REDACTED:SHORT]123"},
	{"leftmost wins over later longer", []Secret{{"A", "abcdefgh"}, {"B", "cdefghijklmn"}},
		"abcdefghijklmn", "[REDACTED:A]ijklmn"},
	{"overlap, later one completes", []Secret{{"A", "abcdefgX"}, {"B", "cdefghij"}},
		"abcdefghij", "ab[REDACTED:B]"},
	{"contained secret", []Secret{{"OUTER", "xxINNERSECRETxx"}, {"INNER", "INNERSECRET"}},
		"INNERSECRET xxINNERSECRETxx xINNERSECRETx", "[REDACTED:INNER] [REDACTED:OUTER] x[REDACTED:INNER]x"},
	{"duplicate values keep first name", []Secret{{"A", "samevalue"}, {"B", "samevalue"}},
		"samevalue", "[REDACTED:A]"},
	{"empty value ignored", []Secret{{"E", ""}, {"T", "abcdefgh"}}, "abcdefgh", "[REDACTED:T]"},
	{"binary bytes", []Secret{{"T", "\x00\xff\x00\xff\x00\xff\x00\xff"}}, "\xff\x00\xff\x00\xff\x00\xff\x00\xff!",
		"\xff[REDACTED:T]!"},
	{"many first bytes", []Secret{{"A", "alpha-secret"}, {"B", "bravo-secret"}, {"C", "charlie-secret"}},
		"alpha-secre bravo-secret charlie-secret alpha-secret", "alpha-secre [REDACTED:B] [REDACTED:C] [REDACTED:A]"},
}

func TestRedactorOneShot(t *testing.T) {
	for _, tt := range redactCases {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(oneShot(tt.secrets, []byte(tt.in))); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
			if got := string(naiveRedact(tt.secrets, []byte(tt.in))); got != tt.want {
				t.Errorf("naive reference disagrees: %q", got)
			}
		})
	}
}

// However the stream is cut, the output is the same.
func TestRedactorSplitInvariance(t *testing.T) {
	for _, tt := range redactCases {
		t.Run(tt.name, func(t *testing.T) {
			in := []byte(tt.in)
			for i := 0; i <= len(in); i++ {
				r := NewRedactor(tt.secrets)
				out := r.Write(nil, in[:i])
				out = r.Write(out, in[i:])
				if got := string(r.Flush(out)); got != tt.want {
					t.Errorf("split at %d: got %q, want %q", i, got, tt.want)
				}
			}
			for i := 0; i <= len(in); i++ {
				for j := i; j <= len(in); j++ {
					r := NewRedactor(tt.secrets)
					out := r.Write(nil, in[:i])
					out = r.Write(out, in[i:j])
					out = r.Write(out, in[j:])
					if got := string(r.Flush(out)); got != tt.want {
						t.Errorf("split at %d,%d: got %q, want %q", i, j, got, tt.want)
					}
				}
			}
			if got := string(feed(t, tt.secrets, in, func() int { return 1 })); got != tt.want {
				t.Errorf("byte by byte: got %q, want %q", got, tt.want)
			}
		})
	}
}

// Text that cannot start a secret is emitted by the same Write; only a
// possible secret prefix is held, and released as soon as it cannot be one.
func TestRedactorHoldBack(t *testing.T) {
	r := NewRedactor([]Secret{{"T", "abcdefgh"}})
	steps := []struct{ in, want string }{
		{"plain text, no a in sight", "plain text, no a in sight"},
		{"xx abc", "xx "},        // "abc" might continue
		{"d", ""},                // "abcd" still might
		{"Z more", "abcdZ more"}, // it did not
		{"a", ""},
		{"bcdefgh!", "[REDACTED:T]!"},
		{"ab", ""},
	}
	var out []byte
	for _, s := range steps {
		before := len(out)
		out = r.Write(out, []byte(s.in))
		if got := string(out[before:]); got != s.want {
			t.Errorf("Write(%q) emitted %q, want %q", s.in, got, s.want)
		}
	}
	if got := string(r.Flush(nil)); got != "ab" {
		t.Errorf("Flush = %q, want %q", got, "ab")
	}
	if got := string(r.Flush(nil)); got != "" {
		t.Errorf("second Flush = %q, want nothing", got)
	}
}

func TestRedactorPassThrough(t *testing.T) {
	for name, r := range map[string]*Redactor{
		"nil":          nil,
		"no secrets":   NewRedactor(nil),
		"empty values": NewRedactor([]Secret{{"A", ""}}),
	} {
		out := r.Write([]byte("pre:"), []byte("abc"))
		out = r.Flush(out)
		if string(out) != "pre:abc" {
			t.Errorf("%s: got %q", name, out)
		}
	}
}

func TestSecrets(t *testing.T) {
	c := &Config{Rules: Rules{RedactEnv: regexp.MustCompile(defaultRedactEnv)}}
	server := []string{
		"PATH=/usr/bin",
		"GITHUB_TOKEN=ghp_server_value_1234",
		"SHORT_KEY=e", // too short: 0.4.0 redacted every "e"
		"SEVEN_KEY=1234567",
		"EIGHT_KEY=12345678",
		"API_KEY=shared-value-xyz",
		"OTHER_SECRET=shared-value-xyz",
		"NOEQUALS_TOKEN",
		"=C:=C:\\windows",
		"token=lowercase-name-ignored",
		"DB_PASSWORD=pa=ss=word=with=equals",
	}
	overlay := []string{
		"GITHUB_TOKEN=ghp_overlay_value_99", // replaces the server's value
		"NEW_SECRET=overlay-only-secret",
	}
	got := c.Secrets(server, overlay)
	want := []Secret{
		{"DB_PASSWORD", "pa=ss=word=with=equals"},
		{"GITHUB_TOKEN", "ghp_overlay_value_99"},
		{"NEW_SECRET", "overlay-only-secret"},
		{"API_KEY", "shared-value-xyz"},
		{"EIGHT_KEY", "12345678"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("Secrets:\n got %q\nwant %q", got, want)
	}
	// The server's entries that name secrets, matched once, give the same.
	if got := c.Secrets(c.SecretVars(server), overlay); !slices.Equal(got, want) {
		t.Errorf("Secrets of SecretVars:\n got %q\nwant %q", got, want)
	}
	if got := (&Config{}).SecretVars(server); got != nil {
		t.Errorf("SecretVars without RedactEnv = %q, want nil", got)
	}
	if got := (&Config{}).Secrets(server); got != nil {
		t.Errorf("Secrets without RedactEnv = %q, want nil", got)
	}
	// A short override removes the longer earlier value too: the command
	// never sees it in its environment.
	got = c.Secrets([]string{"A_TOKEN=long-enough-value"}, []string{"A_TOKEN=short"})
	if len(got) != 0 {
		t.Errorf("short override: got %q", got)
	}
}

// TestRedactorRandom compares random streams over a small alphabet, where
// secrets, their prefixes and overlaps are frequent, with the naive
// reference, fed in random chunks. Secret lengths vary so both the sampled
// and the byte-by-byte candidate scans run.
func TestRedactorRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for iter := range 3000 {
		alphabet := "abc"[:1+rng.IntN(3)] + "xyz"[:rng.IntN(2)]
		word := func(n int) string {
			b := make([]byte, n)
			for i := range b {
				b[i] = alphabet[rng.IntN(len(alphabet))]
			}
			return string(b)
		}
		var secrets []Secret
		minLen := 1 + rng.IntN(10)
		for i := range 1 + rng.IntN(4) {
			secrets = append(secrets, Secret{fmt.Sprint("S", i), word(minLen + rng.IntN(6))})
		}
		in := []byte(word(rng.IntN(300)))
		want := naiveRedact(secrets, in)
		if got := oneShot(secrets, in); !bytes.Equal(got, want) {
			t.Fatalf("iter %d, secrets %q, in %q:\n got %q\nwant %q", iter, secrets, in, got, want)
		}
		maxChunk := 1 + rng.IntN(20)
		if got := feed(t, secrets, in, func() int { return rng.IntN(maxChunk + 1) }); !bytes.Equal(got, want) {
			t.Fatalf("iter %d split, secrets %q, in %q:\n got %q\nwant %q", iter, secrets, in, got, want)
		}
	}
}

// FuzzRedactor checks, for arbitrary data and up to three secrets, that the
// one-shot output matches the naive reference, contains no secret, and that
// random cuts of the stream give the same output. Secrets that could be
// formed by the replacement text itself (brackets, or a piece of
// "REDACTED:X") are skipped: no redactor could keep those out.
func FuzzRedactor(f *testing.F) {
	f.Add([]byte("hello abcdefgh world"), "abcdefgh", "", "", uint64(1))
	f.Add([]byte("abcdefgh1234 abcdefgh123"), "abcdefgh", "abcdefgh1234", "", uint64(2))
	f.Add([]byte("abcdefghijklmn"), "abcdefgh", "cdefghijklmn", "", uint64(3))
	f.Add([]byte("aaaaaaaaaaab aab"), "aaab", "aab", "ab", uint64(4))
	f.Add([]byte("xxINNERxx INNER"), "xxINNERxx", "INNER", "NNE", uint64(5))
	f.Add([]byte("\x00\x01\x00\x01\x00"), "\x00\x01\x00", "\x01\x00", "", uint64(6))
	f.Fuzz(func(t *testing.T, data []byte, a, b, c string, seed uint64) {
		var secrets []Secret
		for i, v := range []string{a, b, c} {
			name := string(rune('A' + i))
			if v == "" || strings.ContainsAny(v, "[]") || strings.Contains("REDACTED:A REDACTED:B REDACTED:C", v) {
				continue
			}
			secrets = append(secrets, Secret{name, v})
		}
		want := naiveRedact(secrets, data)
		got := oneShot(secrets, data)
		if !bytes.Equal(got, want) {
			t.Fatalf("one-shot:\n got %q\nwant %q", got, want)
		}
		for _, s := range secrets {
			if bytes.Contains(got, []byte(s.Value)) {
				t.Fatalf("output %q contains secret %q", got, s.Value)
			}
		}
		rng := rand.New(rand.NewPCG(seed, seed>>1))
		maxChunk := 1 + rng.IntN(16)
		split := feed(t, secrets, data, func() int { return rng.IntN(maxChunk + 1) })
		if !bytes.Equal(split, want) {
			t.Fatalf("split (max chunk %d):\n got %q\nwant %q", maxChunk, split, want)
		}
	})
}

// benchText is log-like output: words, numbers, paths, no secrets.
func benchText(size int) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"info", "debug", "compiling", "package", "github.com/x/y", "ok", "PASS", "--- FAIL",
		"12.5s", "error:", "warning", "/usr/lib/go/src", "main.go:42", "the", "of", "and", "download", "x86_64"}
	var b bytes.Buffer
	for b.Len() < size {
		for range 8 + rng.IntN(8) {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteByte(' ')
		}
		b.WriteByte('\n')
	}
	return b.Bytes()[:size]
}

// benchSecrets look like real tokens; their first bytes (g, s, A, x, e) are
// common in the text, so the candidate scan gets false hits.
var benchSecrets = []Secret{
	{"GITHUB_TOKEN", "ghp_16C7e42F292c6912E7710c838347Ae178B4a"},
	{"OPENAI_API_KEY", "sk-proj-3f9aQ0v7Lm2cXe8RtY4uWb1NzH6kPd5J"},
	{"AWS_SECRET_ACCESS_KEY", "AKIAIOSFODNN7EXAMPLEwJalrXUtnFEMI/K7MDENG"},
	{"SLACK_TOKEN", "xoxb-2048-4096-abcdefABCDEF0123456789"},
	{"JWT_SECRET", "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.e30"},
}

// BenchmarkRedactor measures throughput per 32 KiB write (a PTY read).
// "copy" is the floor: appending the bytes unchanged.
func BenchmarkRedactor(b *testing.B) {
	const chunk = 32 << 10
	text := benchText(1 << 20)
	frequent := bytes.Clone(text)
	for i := 0; i+200 < len(frequent); i += 200 { // a secret every ~200 bytes
		copy(frequent[i:], benchSecrets[(i/200)%len(benchSecrets)].Value)
	}
	cases := []struct {
		name    string
		secrets []Secret
		text    []byte
	}{
		{"none", nil, text},
		{"1secret_nomatch", benchSecrets[:1], text},
		{"5secrets_nomatch", benchSecrets, text},
		{"5secrets_frequent", benchSecrets, frequent},
	}
	run := func(b *testing.B, write func(dst, p []byte) []byte, text []byte) {
		b.SetBytes(chunk)
		dst := make([]byte, 0, 2*chunk)
		off := 0
		for b.Loop() {
			if off+chunk > len(text) {
				off = 0
			}
			dst = write(dst[:0], text[off:off+chunk])
			off += chunk
		}
	}
	b.Run("copy", func(b *testing.B) {
		run(b, func(dst, p []byte) []byte { return append(dst, p...) }, text)
	})
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			r := NewRedactor(c.secrets)
			run(b, r.Write, c.text)
		})
	}
}

func ExampleRedactor() {
	r := NewRedactor([]Secret{{Name: "API_TOKEN", Value: "tok-1234567890"}})
	var out []byte
	out = r.Write(out, []byte("using tok-12345")) // the tail might be the secret: held
	out = r.Write(out, []byte("67890 now\n"))
	out = r.Flush(out)
	fmt.Print(string(out))
	// Output: using [REDACTED:API_TOKEN] now
}

// An error quoting a secret is redacted; a refusal stays one with its rule,
// any other error still unwraps to itself, and one without a secret is
// returned as it is.
func TestRedactError(t *testing.T) {
	secrets := []Secret{{Name: "TOKEN", Value: "s3cr3t-value"}}
	ref := &Refusal{Rule: "cwd", Message: "cwd /home/s3cr3t-value is not allowed"}
	got := RedactError(secrets, ref)
	r, ok := errors.AsType[*Refusal](got)
	if !ok || r.Rule != "cwd" || r.Message != "cwd /home/[REDACTED:TOKEN] is not allowed" {
		t.Errorf("refusal: %#v", got)
	}
	base := fmt.Errorf("finding shell %q: %w", "s3cr3t-value", os.ErrNotExist)
	got = RedactError(secrets, base)
	if !errors.Is(got, os.ErrNotExist) || strings.Contains(got.Error(), "s3cr3t") {
		t.Errorf("other error: %v", got)
	}
	if plain := errors.New("plain"); RedactError(secrets, plain) != plain {
		t.Error("an error without a secret was replaced")
	}
}

// A secret added mid-stream (a password typed into the process) is
// redacted from the next byte on, also where a tail held back for an older
// secret turns out to begin the new one; what came before stays as it was.
func TestRedactorResetRedactsTypedSecretFromThenOn(t *testing.T) {
	env := []Secret{{Name: "TOKEN", Value: "abcdefgh-token"}}
	r := NewRedactor(env)
	out := r.Write(nil, []byte("before hunter22 then abc"))
	if string(out) != "before hunter22 then " {
		t.Fatalf("before Reset: %q", out)
	}
	// "abc" is held: it may begin the token. Now "abc" is also the start of
	// the typed secret "abchunter".
	r.Reset(append(env, Secret{Name: "password", Value: "abchunter"}))
	out = r.Write(out, []byte("hunter and hunter22 and "))
	out = r.Write(out, []byte("abcdefgh-token"))
	out = r.Flush(out)
	want := "before hunter22 then [REDACTED:password] and hunter22 and [REDACTED:TOKEN]"
	if string(out) != want {
		t.Errorf("got  %q\nwant %q", out, want)
	}
	// Every split of the stream after Reset gives the same text.
	for cut := range len("xabchunterx") {
		r := NewRedactor(nil)
		got := r.Write(nil, []byte("xab"))
		r.Reset([]Secret{{Name: "p", Value: "abchunter"}})
		s := "chunterx"
		got = r.Write(got, []byte(s[:min(cut, len(s))]))
		got = r.Write(got, []byte(s[min(cut, len(s)):]))
		got = r.Flush(got)
		if string(got) != "xab"+"chunterx" {
			// Bytes emitted before the secret was known are not taken back.
			t.Errorf("cut %d: %q", cut, got)
		}
	}
	// A short secret (1–3 bytes) is redacted too, wherever it occurs.
	r = NewRedactor(nil)
	r.Reset([]Secret{{Name: "password", Value: "42"}})
	if got := string(r.Flush(r.Write(nil, []byte("1425 42")))); got != "1[REDACTED:password]5 [REDACTED:password]" {
		t.Errorf("short secret: %q", got)
	}
}
