package human

import (
	"context"
	"encoding/base64"
	"math/bits"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestTokenEntropyAndFormat(t *testing.T) {
	const n = 400
	seen := make(map[string]bool, n)
	ones := 0
	for range n {
		tok, err := newToken()
		if err != nil {
			t.Fatal(err)
		}
		if len(tok) != 43 || !validToken(tok) {
			t.Fatalf("token %q: want 43 base64url characters", tok)
		}
		raw, err := base64.RawURLEncoding.DecodeString(tok)
		if err != nil || len(raw) != 32 {
			t.Fatalf("token %q decodes to %d bytes (%v), want 32", tok, len(raw), err)
		}
		if seen[tok] {
			t.Fatalf("token %q made twice", tok)
		}
		seen[tok] = true
		for _, b := range raw {
			ones += bits.OnesCount8(b)
		}
	}
	// n*256 fair bits: mean n*128, standard deviation 8*sqrt(n) = 160.
	if mean := n * 128; ones < mean-1600 || ones > mean+1600 {
		t.Errorf("%d one bits in %d tokens, want about %d: not random", ones, n, mean)
	}

	p, ts, _ := mounted(t, Config{})
	pg := openSecret(t, p, &sink{})
	if !strings.HasPrefix(pg.URL(), ts.URL+"/human/") || !validToken(strings.TrimPrefix(pg.URL(), ts.URL+"/human/")) {
		t.Errorf("URL %q: want %s/human/ and a token", pg.URL(), ts.URL)
	}
	for _, bad := range []string{"", "short", strings.Repeat("a", 42) + "!", strings.Repeat("a", 44)} {
		if validToken(bad) {
			t.Errorf("validToken(%q) = true", bad)
		}
	}
}

// TestRefusedRequests sends each kind of request that must be refused to a
// fresh secret page, and checks the status, that nothing was submitted,
// that the page is still open, and that a proper submit then still works.
func TestRefusedRequests(t *testing.T) {
	p, ts, logs := mounted(t, Config{})
	origin := ts.URL
	host := ts.Listener.Addr().String()
	_, port, _ := net.SplitHostPort(host)
	tests := []struct {
		name string
		rq   func(page string) request
		want int
	}{
		{"wrong Origin", func(u string) request {
			return request{method: "POST", url: u, body: submitForm("pw"), header: map[string]string{"Origin": "http://evil.example"}}
		}, 403},
		{"Origin of another port", func(u string) request {
			return request{method: "POST", url: u, body: submitForm("pw"), header: map[string]string{"Origin": "http://127.0.0.1:1"}}
		}, 403},
		{"Origin null and nothing else", func(u string) request {
			return request{method: "POST", url: u, body: submitForm("pw"), header: map[string]string{"Origin": "null"}}
		}, 403},
		{"no Origin, no Referer", func(u string) request {
			return request{method: "POST", url: u, body: submitForm("pw"), header: map[string]string{"Origin": ""}}
		}, 403},
		{"no Origin, Referer of another site", func(u string) request {
			return request{method: "POST", url: u, body: submitForm("pw"), header: map[string]string{"Origin": "", "Referer": "http://evil.example/x"}}
		}, 403},
		{"cross-site fetch metadata", func(u string) request {
			return request{method: "POST", url: u, body: submitForm("pw"), header: map[string]string{"Sec-Fetch-Site": "cross-site"}}
		}, 403},
		{"same-site fetch metadata", func(u string) request {
			return request{method: "POST", url: u, body: submitForm("pw"), header: map[string]string{"Sec-Fetch-Site": "same-site"}}
		}, 403},
		{"same-origin metadata but wrong Origin", func(u string) request {
			return request{method: "POST", url: u, body: submitForm("pw"), header: map[string]string{"Sec-Fetch-Site": "same-origin", "Origin": "http://evil.example"}}
		}, 403},
		{"rebound Host on POST", func(u string) request {
			return request{method: "POST", url: u, body: submitForm("pw"), header: map[string]string{"Host": "evil.example:" + port}}
		}, 403},
		{"rebound Host on GET", func(u string) request {
			return request{method: "GET", url: u, header: map[string]string{"Host": "evil.example:" + port}}
		}, 403},
		{"localhost is not the listener's address", func(u string) request {
			return request{method: "GET", url: u, header: map[string]string{"Host": "localhost:" + port}}
		}, 403},
		{"secret in a GET query", func(u string) request {
			return request{method: "GET", url: u + "?secret=pw&action=submit"}
		}, 400},
		{"secret in a POST query", func(u string) request {
			return request{method: "POST", url: u + "?secret=pw", body: "action=submit"}
		}, 400},
		{"empty query", func(u string) request { return request{method: "GET", url: u + "?"} }, 400},
		{"unknown token", func(u string) request {
			return request{method: "POST", url: ts.URL + "/human/" + strings.Repeat("A", 43), body: submitForm("pw")}
		}, 404},
		{"token one character off", func(u string) request {
			last := u[len(u)-1]
			c := byte('A')
			if last == 'A' {
				c = 'B'
			}
			return request{method: "POST", url: u[:len(u)-1] + string(c), body: submitForm("pw")}
		}, 404},
		{"token with a prefix only", func(u string) request {
			return request{method: "POST", url: u[:len(u)-10], body: submitForm("pw")}
		}, 404},
		{"multipart body", func(u string) request {
			return request{method: "POST", url: u, body: submitForm("pw"), header: map[string]string{"Content-Type": "multipart/form-data; boundary=x"}}
		}, 415},
		{"text/plain body", func(u string) request {
			return request{method: "POST", url: u, body: submitForm("pw"), header: map[string]string{"Content-Type": "text/plain"}}
		}, 415},
		{"body too large", func(u string) request {
			return request{method: "POST", url: u, body: submitForm(strings.Repeat("x", 9000))}
		}, 413},
		{"secret field twice", func(u string) request {
			return request{method: "POST", url: u, body: "secret=a&secret=b"}
		}, 400},
		{"bad percent-encoding", func(u string) request {
			return request{method: "POST", url: u, body: "secret=%zz"}
		}, 400},
		{"Done on a secret page", func(u string) request {
			return request{method: "POST", url: u, body: "action=done"}
		}, 400},
		{"no secret field", func(u string) request {
			return request{method: "POST", url: u, body: "action=submit"}
		}, 400},
		{"PUT", func(u string) request { return request{method: "PUT", url: u, body: submitForm("pw")} }, 405},
		{"keys on a secret page", func(u string) request {
			return request{method: "POST", url: u + "/keys", body: "pw"}
		}, 405},
		{"result of an open page", func(u string) request { return request{method: "GET", url: u + "/result"} }, 409},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &sink{}
			pg := openSecret(t, p, s)
			resp, body := do(t, origin, tc.rq(pg.URL()))
			if resp.StatusCode != tc.want {
				t.Fatalf("status %d, want %d; body:\n%s", resp.StatusCode, tc.want, body)
			}
			checkHeaders(t, resp)
			if got := s.submitted(); len(got) != 0 {
				t.Fatalf("submitted %q on a refused request", got)
			}
			if o := pg.Outcome(); o != "" {
				t.Fatalf("page ended (%s) on a refused request", o)
			}
			// The refused attempt did not use the page up.
			resp, body = do(t, origin, request{method: "POST", url: pg.URL(), body: submitForm("right one")})
			if resp.StatusCode != http.StatusSeeOther {
				t.Fatalf("submit after the refusal: status %d; body:\n%s", resp.StatusCode, body)
			}
			if got := s.submitted(); len(got) != 1 || got[0] != "right one" {
				t.Fatalf("submitted %q, want [right one]", got)
			}
		})
	}
	for _, leak := range []string{"right one", "pw"} {
		if strings.Contains(logs.String(), leak) {
			t.Errorf("the log holds a secret (%q):\n%s", leak, logs.String())
		}
	}
}

// checkHeaders checks what every answer must carry.
func checkHeaders(t *testing.T, resp *http.Response) {
	t.Helper()
	h := resp.Header
	want := map[string]string{
		"Cache-Control":          "no-store",
		"Referrer-Policy":        "no-referrer",
		"X-Frame-Options":        "DENY",
		"X-Content-Type-Options": "nosniff",
	}
	for k, v := range want {
		if h.Get(k) != v {
			t.Errorf("%s: %q, want %q", k, h.Get(k), v)
		}
	}
	csp := h.Get("Content-Security-Policy")
	for _, d := range []string{"default-src 'none'", "frame-ancestors 'none'", "base-uri 'none'", "form-action 'self'"} {
		if !strings.Contains(csp, d) {
			t.Errorf("Content-Security-Policy %q lacks %q", csp, d)
		}
	}
	if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") || strings.Contains(csp, "http") {
		t.Errorf("Content-Security-Policy %q is not strict", csp)
	}
}

// TestSecretPageLifecycle: the page, a submit, the result, then gone.
func TestSecretPageLifecycle(t *testing.T) {
	p, ts, logs := mounted(t, Config{})
	s := &sink{}
	pg := openSecret(t, p, s)
	origin := ts.URL

	resp, body := do(t, origin, request{method: "GET", url: pg.URL()})
	if resp.StatusCode != 200 {
		t.Fatalf("GET page: %d", resp.StatusCode)
	}
	checkHeaders(t, resp)
	select {
	case <-pg.Opened():
	default:
		t.Error("Opened not closed after the page was viewed")
	}
	for _, want := range []string{
		`name="viewport"`, `type="password"`, `autocomplete="off"`, `method="post"`,
		"sudo -k true", "pid 4242", "sudo needs your password", "[sudo] password for dev: ", "Decline",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	for _, banned := range []string{"<script", "http://", "https://", "src=", "<link"} {
		if strings.Contains(body, banned) {
			t.Errorf("secret page contains %q: not self-contained or needs JavaScript", banned)
		}
	}

	const secret = "pa ss+w%rd&=é\x00"
	resp, _ = do(t, origin, request{method: "POST", url: pg.URL(), body: submitForm(secret)})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("submit: %d", resp.StatusCode)
	}
	loc := resp.Header.Get("Location")
	// The page's token is random base64: it may hold any short piece of
	// the secret ("pa" once in a hundred runs), so the secret is looked
	// for whole, in each form a URL could carry it.
	if loc != strings.TrimPrefix(pg.URL(), ts.URL)+"/result" {
		t.Errorf("redirect to %q", loc)
	}
	for _, form := range []string{secret, url.QueryEscape(secret), url.PathEscape(secret)} {
		if strings.Contains(loc, form) {
			t.Errorf("redirect to %q carries the secret", loc)
		}
	}
	if got := s.submitted(); len(got) != 1 || got[0] != secret {
		t.Fatalf("submitted %q, want [%q]", got, secret)
	}
	for _, b := range s.bufs[0] {
		if b != 0 {
			t.Errorf("the secret's buffer was not zeroed after Submit: %q", s.bufs[0])
			break
		}
	}
	if o, err := pg.Wait(context.Background()); err != nil || o != Submitted {
		t.Errorf("outcome %q, %v; want submitted", o, err)
	}
	resp, body = do(t, origin, request{method: "GET", url: ts.URL + loc})
	if resp.StatusCode != 200 || !strings.Contains(body, "Sent") {
		t.Errorf("result: %d\n%s", resp.StatusCode, body)
	}
	checkHeaders(t, resp)
	// Used up: the page, a second submit and a decline are gone.
	for _, rq := range []request{
		{method: "GET", url: pg.URL()},
		{method: "POST", url: pg.URL(), body: submitForm("again")},
		{method: "POST", url: pg.URL(), body: "action=decline"},
	} {
		resp, body = do(t, origin, rq)
		if resp.StatusCode != http.StatusGone || !strings.Contains(body, "used") {
			t.Errorf("%s after use: %d, want 410 saying used\n%s", rq.method, resp.StatusCode, body)
		}
	}
	if got := s.submitted(); len(got) != 1 {
		t.Errorf("submitted %q after use", got)
	}
	if l := logs.String(); strings.Contains(l, "pa ss") || strings.Contains(l, strings.TrimPrefix(pg.URL(), ts.URL+"/human/")) {
		t.Errorf("the log holds the secret or the token:\n%s", l)
	}
}

func TestDeclineAndFailedSubmit(t *testing.T) {
	p, ts, _ := mounted(t, Config{})
	s := &sink{err: errNotWaiting}
	pg := openSecret(t, p, s)
	resp, body := do(t, ts.URL, request{method: "POST", url: pg.URL(), body: submitForm("hunter2")})
	if resp.StatusCode != http.StatusConflict || !strings.Contains(body, "no longer waiting") || strings.Contains(body, "hunter2") {
		t.Fatalf("failed submit: %d\n%s", resp.StatusCode, body)
	}
	if pg.Outcome() != "" {
		t.Fatalf("a failed submit ended the page: %s", pg.Outcome())
	}
	resp, _ = do(t, ts.URL, request{method: "POST", url: pg.URL(), body: "secret=typed+anyway&action=decline"})
	if resp.StatusCode != http.StatusSeeOther || pg.Outcome() != Declined {
		t.Fatalf("decline: %d, outcome %q", resp.StatusCode, pg.Outcome())
	}
	if len(s.submitted()) != 0 {
		t.Fatal("a decline submitted")
	}
}

// TestRacingSubmits: of several submits at once, exactly one is taken.
func TestRacingSubmits(t *testing.T) {
	p, ts, _ := mounted(t, Config{})
	for _, held := range []bool{true, false} {
		s := &sink{}
		if held { // the winner's Submit waits until every other answer is in
			s.entered, s.release = make(chan struct{}, 16), make(chan struct{})
		}
		pg := openSecret(t, p, s)
		const n = 8
		codes := make(chan int, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				resp, _ := do(t, ts.URL, request{method: "POST", url: pg.URL(), body: submitForm("secret " + string(rune('a'+i)))})
				codes <- resp.StatusCode
			})
		}
		count := map[int]int{}
		if held {
			<-s.entered
			for range n - 1 {
				count[<-codes]++
			}
			if count[http.StatusConflict] != n-1 {
				t.Errorf("while one submit runs, the others got %v, want %d× 409", count, n-1)
			}
			close(s.release)
		}
		wg.Wait()
		close(codes)
		for c := range codes {
			count[c]++
		}
		if count[http.StatusSeeOther] != 1 || count[http.StatusSeeOther]+count[http.StatusConflict]+count[http.StatusGone] != n {
			t.Errorf("held=%v: statuses %v, want exactly one 303 and the rest 409 or 410", held, count)
		}
		if got := s.submitted(); len(got) != 1 {
			t.Errorf("held=%v: submitted %q, want exactly one", held, got)
		}
	}
}

// TestSelfServedLoopback: without a BaseURL, Pages listens on loopback
// on demand, checks Host against that address, and Close stops it.
func TestSelfServedLoopback(t *testing.T) {
	p, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	s := &sink{}
	pg := openSecret(t, p, s)
	u, err := url.Parse(pg.URL())
	if err != nil {
		t.Fatal(err)
	}
	host, port, _ := net.SplitHostPort(u.Host)
	if ip := net.ParseIP(host); u.Scheme != "http" || ip == nil || !ip.IsLoopback() {
		t.Fatalf("URL %q: want http on a loopback address", pg.URL())
	}
	origin := originOf(t, pg.URL())
	if resp, _ := do(t, origin, request{method: "GET", url: pg.URL(), header: map[string]string{"Host": "attacker.example:" + port}}); resp.StatusCode != 403 {
		t.Errorf("rebound Host: %d, want 403", resp.StatusCode)
	}
	resp, _ := do(t, origin, request{method: "POST", url: pg.URL(), body: submitForm("s3"),
		header: map[string]string{"Origin": "null", "Sec-Fetch-Site": "same-origin"}})
	if resp.StatusCode != http.StatusSeeOther || pg.Outcome() != Submitted {
		t.Fatalf("submit: %d, outcome %q", resp.StatusCode, pg.Outcome())
	}
	second := openSecret(t, p, s)
	if !strings.HasPrefix(second.URL(), origin+"/") {
		t.Errorf("second page %q not on the same listener %s", second.URL(), origin)
	}
	closePages(t, p)
	if second.Outcome() != Withdrawn {
		t.Errorf("open page after Close: %q, want withdrawn", second.Outcome())
	}
	if c, err := net.DialTimeout("tcp", u.Host, time.Second); err == nil {
		c.Close()
		t.Error("the listener still accepts after Close")
	}
	if _, err := p.Open(context.Background(), Request{Secret: s}); err != ErrClosed {
		t.Errorf("Open after Close: %v, want ErrClosed", err)
	}
}

func TestOpenValidates(t *testing.T) {
	p, _, _ := mounted(t, Config{})
	ctx := context.Background()
	for name, rq := range map[string]Request{
		"neither":  {},
		"both":     {Secret: &sink{}, Terminal: newTerm("")},
		"negative": {Secret: &sink{}, Timeout: -time.Second},
		"too long": {Secret: &sink{}, Timeout: MaxTimeout + 1},
	} {
		if _, err := p.Open(ctx, rq); err == nil {
			t.Errorf("%s: Open succeeded", name)
		}
	}
	for _, base := range []string{"ftp://x/", "http:///x/", "http://u:p@h/", "http://h/?q"} {
		if _, err := New(Config{BaseURL: base}); err == nil {
			t.Errorf("New(%q) succeeded", base)
		}
	}
}

func TestProvenance(t *testing.T) {
	const origin = "http://127.0.0.1:8080"
	tests := []struct {
		site, origin, referer string
		ok                    bool
	}{
		{"same-origin", "", "", true},
		{"same-origin", "null", "", true}, // Chromium under no-referrer
		{"same-origin", origin, "", true},
		{"same-origin", "http://127.0.0.1:8081", "", false},
		{"same-site", origin, "", false},
		{"cross-site", origin, origin + "/human/x", false},
		{"none", "", "", false},
		{"", origin, "", true},
		{"", "HTTP://127.0.0.1:8080", "", true},
		{"", "http://localhost:8080", "", false},
		{"", "", origin + "/human/tok", true},
		{"", "null", origin + "/human/tok", true},
		{"", "", "http://127.0.0.1:8080.evil.example/", false},
		{"", "", "not a url\x7f", false},
		{"", "null", "", false},
		{"", "", "", false},
	}
	for _, tc := range tests {
		r, _ := http.NewRequest("POST", origin+"/human/tok", nil)
		for k, v := range map[string]string{"Sec-Fetch-Site": tc.site, "Origin": tc.origin, "Referer": tc.referer} {
			if v != "" {
				r.Header.Set(k, v)
			}
		}
		if why := provenance(r, origin); (why == "") != tc.ok {
			t.Errorf("site %q origin %q referer %q: %q, want ok=%v", tc.site, tc.origin, tc.referer, why, tc.ok)
		}
	}
}
