package human

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// fakeBase is the BaseURL of the pages served by ServeHTTP in a bubble.
const fakeBase = "http://127.0.0.1:9/human/"

// serve sends one request straight to the handler (no network: it runs
// in a synctest bubble).
func serve(p *Pages, method, url, body string) *httptest.ResponseRecorder {
	var r *http.Request
	if body != "" {
		r = httptest.NewRequest(method, url, strings.NewReader(body))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		r.Header.Set("Origin", "http://127.0.0.1:9")
	} else {
		r = httptest.NewRequest(method, url, nil)
	}
	w := httptest.NewRecorder()
	p.Handler().ServeHTTP(w, r)
	return w
}

// stream is a ResponseWriter for an event stream read while it is written.
type stream struct {
	mu     sync.Mutex
	header http.Header
	b      strings.Builder
}

func (s *stream) Header() http.Header { return s.header }
func (s *stream) WriteHeader(int)     {}
func (s *stream) Flush()              {}
func (s *stream) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(b)
}
func (s *stream) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// watch opens a page's event stream in a goroutine; cancel ends it, and
// the returned channel is closed when the handler returned.
func watch(p *Pages, pg *Page) (*stream, context.CancelFunc, <-chan struct{}) {
	ctx, cancel := context.WithCancel(context.Background())
	r := httptest.NewRequestWithContext(ctx, "GET", pg.URL()+"/events", nil)
	s := &stream{header: http.Header{}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.Handler().ServeHTTP(s, r)
	}()
	return s, cancel, done
}

func TestExpiry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, err := New(Config{BaseURL: fakeBase})
		if err != nil {
			t.Fatal(err)
		}
		defer closePages(t, p)
		s := &sink{}
		pg, err := p.Open(t.Context(), Request{Secret: s, Timeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		if w := serve(p, "GET", pg.URL(), ""); w.Code != 200 || !strings.Contains(w.Body.String(), "expires in 60 seconds") {
			t.Fatalf("fresh page: %d\n%s", w.Code, w.Body)
		}
		time.Sleep(time.Minute - time.Nanosecond)
		synctest.Wait()
		if o := pg.Outcome(); o != "" {
			t.Fatalf("ended %q before its deadline", o)
		}
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		select {
		case <-pg.Done():
		default:
			t.Fatal("not done at its deadline")
		}
		if o := pg.Outcome(); o != Left {
			t.Fatalf("outcome %q at the deadline, want left", o)
		}
		for _, m := range []string{"GET", "POST"} {
			body := ""
			if m == "POST" {
				body = submitForm("late")
			}
			if w := serve(p, m, pg.URL(), body); w.Code != http.StatusGone || !strings.Contains(w.Body.String(), "expired") {
				t.Errorf("%s after expiry: %d, want 410 saying expired", m, w.Code)
			}
		}
		if len(s.submitted()) != 0 {
			t.Error("submitted after expiry")
		}
		time.Sleep(keepEnded)
		synctest.Wait()
		if w := serve(p, "GET", pg.URL(), ""); w.Code != http.StatusNotFound {
			t.Errorf("long after expiry: %d, want 404 (forgotten)", w.Code)
		}
	})
}

// TestHandoverLeave: a handover page is left when no live view has been
// connected for the grace; until it is viewed, only the deadline counts.
func TestHandoverLeave(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const grace = 30 * time.Second
		p, err := New(Config{BaseURL: fakeBase, LeaveGrace: grace})
		if err != nil {
			t.Fatal(err)
		}
		defer closePages(t, p)
		tm := newTerm("$ ")
		open := func() *Page {
			pg, err := p.Open(t.Context(), Request{Terminal: tm, Timeout: time.Hour})
			if err != nil {
				t.Fatal(err)
			}
			return pg
		}
		after := func(d time.Duration) { time.Sleep(d); synctest.Wait() }

		// Never viewed: open until the deadline.
		unviewed := open()
		// Viewed, the script never connects: left after the grace.
		noScript := open()
		if w := serve(p, "GET", noScript.URL(), ""); w.Code != 200 {
			t.Fatalf("GET: %d", w.Code)
		}
		after(grace)
		if noScript.Outcome() != Left || unviewed.Outcome() != "" {
			t.Fatalf("after the grace: viewed-only %q (want left), unviewed %q (want open)", noScript.Outcome(), unviewed.Outcome())
		}

		// Viewed with a live view: held while connected, left after the
		// grace once it drops, kept by a reconnection within the grace.
		pg := open()
		serve(p, "GET", pg.URL(), "")
		s, cancel, ended := watch(p, pg)
		after(10 * time.Minute)
		if pg.Outcome() != "" {
			t.Fatalf("left (%q) while its live view was connected", pg.Outcome())
		}
		tm.set("$ ls\r\nfile\r\n$ ")
		synctest.Wait()
		if !strings.Contains(s.String(), `file`) {
			t.Errorf("stream missed the change:\n%s", s)
		}
		cancel()
		<-ended
		after(grace - time.Second)
		_, cancel2, ended2 := watch(p, pg) // a reload
		after(time.Minute)
		if pg.Outcome() != "" {
			t.Fatalf("left (%q) though it reconnected within the grace", pg.Outcome())
		}
		cancel2()
		<-ended2
		after(grace)
		if pg.Outcome() != Left {
			t.Fatalf("outcome %q a grace after the view closed, want left", pg.Outcome())
		}
		after(time.Hour)
		if unviewed.Outcome() != Left {
			t.Errorf("unviewed page at its deadline: %q", unviewed.Outcome())
		}
	})
}

// TestCloseJoins: Close ends a live stream and a Submit in flight, and
// returns only when they have; the bubble proves no goroutine is left.
func TestCloseJoins(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, err := New(Config{BaseURL: fakeBase})
		if err != nil {
			t.Fatal(err)
		}
		tm := newTerm("top")
		hp, _ := p.Open(t.Context(), Request{Terminal: tm})
		_, cancel, streamDone := watch(p, hp)
		defer cancel()
		s := &sink{entered: make(chan struct{}, 1), release: make(chan struct{})}
		sp, _ := p.Open(t.Context(), Request{Secret: s})
		submitDone := make(chan int)
		go func() { submitDone <- serve(p, "POST", sp.URL(), submitForm("x")).Code }()
		<-s.entered
		synctest.Wait()
		if err := p.Close(t.Context()); err != nil {
			t.Fatalf("Close: %v", err)
		}
		select {
		case <-streamDone:
		default:
			t.Error("Close returned with a stream still served")
		}
		if code := <-submitDone; code != http.StatusConflict {
			t.Errorf("submit cut by Close: %d, want 409", code)
		}
		if hp.Outcome() != Withdrawn || sp.Outcome() != Withdrawn {
			t.Errorf("outcomes after Close: %q, %q; want withdrawn", hp.Outcome(), sp.Outcome())
		}
		if w := serve(p, "GET", hp.URL(), ""); w.Code != http.StatusServiceUnavailable {
			t.Errorf("after Close: %d, want 503", w.Code)
		}
		if err := p.Close(t.Context()); err != nil {
			t.Errorf("second Close: %v", err)
		}
	})
}

func TestWithdraw(t *testing.T) {
	p, ts, _ := mounted(t, Config{})
	s := &sink{}
	pg := openSecret(t, p, s)
	pg.Withdraw()
	if o, _ := pg.Wait(t.Context()); o != Withdrawn {
		t.Fatalf("outcome %q", o)
	}
	resp, body := do(t, ts.URL, request{method: "POST", url: pg.URL(), body: submitForm("x")})
	if resp.StatusCode != http.StatusGone || !strings.Contains(body, "withdrawn") {
		t.Errorf("after Withdraw: %d\n%s", resp.StatusCode, body)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := openSecret(t, p, s).Wait(ctx); err == nil {
		t.Error("Wait with a canceled context returned no error")
	}
}

// TestHandoverOverHTTP drives a handover page's endpoints as its script
// does: the stream, keys, Done.
func TestHandoverOverHTTP(t *testing.T) {
	p, ts, _ := mounted(t, Config{})
	tm := newTerm("hello <screen>")
	pg, err := p.Open(t.Context(), Request{Terminal: tm, Program: Program{Command: "vim notes.txt", PID: 7}, Message: "please fix the merge"})
	if err != nil {
		t.Fatal(err)
	}
	resp, body := do(t, ts.URL, request{method: "GET", url: pg.URL()})
	if resp.StatusCode != 200 || !strings.Contains(body, "hello &lt;screen&gt;") || !strings.Contains(body, "vim notes.txt") {
		t.Fatalf("page: %d\n%s", resp.StatusCode, body)
	}
	csp := resp.Header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "script-src 'sha256-") || !strings.Contains(csp, "connect-src 'self'") {
		t.Errorf("handover CSP %q", csp)
	}
	checkHeaders(t, resp)
	// The page's markup, without its inline scripts and style (the terminal
	// library's text names URLs in comments).
	markup := regexp.MustCompile(`(?s)<script>.*?</script>|<style>.*?</style>`).ReplaceAllString(body, "")
	if strings.Contains(markup, "src=") || strings.Contains(markup, "http") {
		i := max(strings.Index(markup, "src="), strings.Index(markup, "http"))
		t.Errorf("handover page loads something from elsewhere: ...%s...", markup[max(0, i-80):min(len(markup), i+80)])
	}

	// A live view from another site is refused.
	if resp, _ := do(t, ts.URL, request{method: "GET", url: pg.URL() + "/events", header: map[string]string{"Sec-Fetch-Site": "cross-site"}}); resp.StatusCode != 403 {
		t.Errorf("cross-site stream: %d", resp.StatusCode)
	}
	r, _ := http.NewRequestWithContext(t.Context(), "GET", pg.URL()+"/events", nil)
	r.Header.Set("Sec-Fetch-Site", "same-origin")
	sresp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer sresp.Body.Close()
	if ct := sresp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("stream content type %q", ct)
	}
	frames := make(chan frame, 16)
	go func() {
		defer close(frames)
		sc := bufio.NewScanner(sresp.Body)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var f frame
				if json.Unmarshal([]byte(d), &f) == nil {
					frames <- f
				}
			}
		}
	}()
	next := func() frame {
		t.Helper()
		select {
		case f, ok := <-frames:
			if !ok {
				t.Fatal("stream ended")
			}
			return f
		case <-time.After(10 * time.Second):
			t.Fatal("no frame within 10 s")
		}
		return frame{}
	}
	if f := next(); f.Screen != "hello <screen>" {
		t.Errorf("first frame %+v", f)
	}
	tm.set("second screen")
	if f := next(); f.Screen != "second screen" {
		t.Errorf("frame after the change %+v", f)
	}

	keys := func(b string, hdr map[string]string) int {
		resp, _ := do(t, ts.URL, request{method: "POST", url: pg.URL() + "/keys", body: b, header: hdr})
		return resp.StatusCode
	}
	if c := keys("ls\r", map[string]string{"Content-Type": "application/octet-stream"}); c != http.StatusNoContent {
		t.Fatalf("keys: %d", c)
	}
	if c := keys("rm -rf ~\r", map[string]string{"Origin": "http://evil.example"}); c != 403 {
		t.Errorf("keys from another origin: %d", c)
	}
	if c := keys("\x1b[A\x03", map[string]string{"Origin": "null", "Sec-Fetch-Site": "same-origin"}); c != http.StatusNoContent {
		t.Errorf("keys with same-origin fetch metadata: %d", c)
	}
	if c := keys(strings.Repeat("x", maxKeysBody+1), nil); c != http.StatusRequestEntityTooLarge {
		t.Errorf("too many keys: %d", c)
	}
	tm.waitKeys(t, "ls\r\x1b[A\x03")

	resp, _ = do(t, ts.URL, request{method: "POST", url: pg.URL(), body: "action=done"})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("done: %d", resp.StatusCode)
	}
	if f := next(); f.Ended != Done {
		t.Errorf("last frame %+v, want ended done", f)
	}
	select {
	case _, ok := <-frames:
		if ok {
			t.Error("frames after the end")
		}
	case <-time.After(10 * time.Second):
		t.Error("stream not closed after the end")
	}
	if pg.Outcome() != Done {
		t.Errorf("outcome %q", pg.Outcome())
	}
	if c := keys("late", nil); c != http.StatusGone {
		t.Errorf("keys after Done: %d", c)
	}
	resp, body = do(t, ts.URL, request{method: "GET", url: pg.URL() + "/result"})
	if resp.StatusCode != 200 || !strings.Contains(body, "Handed back") {
		t.Errorf("result %d\n%s", resp.StatusCode, body)
	}
	_, _ = io.Copy(io.Discard, sresp.Body)
}
