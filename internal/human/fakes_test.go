package human

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// sink is a SecretSink that records what it was given, keeps the buffer
// it was handed (to check it is zeroed afterwards), and can block or fail.
type sink struct {
	mu      sync.Mutex
	got     []string
	bufs    [][]byte
	err     error
	entered chan struct{} // if set, a value is sent when Submit starts
	release chan struct{} // if set, Submit waits for it to close
}

func (s *sink) Submit(ctx context.Context, secret []byte) error {
	if s.entered != nil {
		s.entered <- struct{}{}
	}
	if s.release != nil {
		select {
		case <-s.release:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	s.got = append(s.got, string(secret))
	s.bufs = append(s.bufs, secret)
	return nil
}

func (s *sink) submitted() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.got...)
}

// term is a Terminal with a settable screen that records keys.
type term struct {
	mu      sync.Mutex
	text    string
	changed chan struct{}
	keys    bytes.Buffer
	keyed   chan struct{} // closed and replaced at each Keys
	size    string        // the last Resize, COLSxROWS
}

func newTerm(text string) *term {
	return &term{text: text, changed: make(chan struct{}), keyed: make(chan struct{})}
}

func (t *term) Screen() (string, <-chan struct{}) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.text, t.changed
}

func (t *term) ANSI() (string, int, int, <-chan struct{}) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return "\x1b[H\x1b[2J" + strings.ReplaceAll(t.text, "\n", "\r\n"), 0, 0, t.changed
}

func (t *term) Resize(cols, rows int) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.size = fmt.Sprintf("%dx%d", cols, rows)
	return nil
}

func (t *term) gotSize() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.size
}

func (t *term) set(text string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.text = text
	close(t.changed)
	t.changed = make(chan struct{})
}

func (t *term) Keys(ctx context.Context, b []byte) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.keys.Write(b)
	close(t.keyed)
	t.keyed = make(chan struct{})
	return nil
}

// waitKeys waits until the keys received equal want.
func (t *term) waitKeys(tb testing.TB, want string) {
	tb.Helper()
	deadline := time.After(10 * time.Second)
	for {
		t.mu.Lock()
		got, ch := t.keys.String(), t.keyed
		t.mu.Unlock()
		if got == want {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			tb.Fatalf("keys: got %q, want %q", got, want)
		}
	}
}

// syncBuffer is a log destination safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// mounted serves Pages under /human/ on an httptest server, as the --http
// listener would, and returns them with the server's URL; the log goes to
// the returned buffer at debug level.
func mounted(t *testing.T, cfg Config) (*Pages, *httptest.Server, *syncBuffer) {
	t.Helper()
	ts := httptest.NewUnstartedServer(nil)
	logs := &syncBuffer{}
	cfg.BaseURL = "http://" + ts.Listener.Addr().String() + "/human/"
	cfg.Logger = newTestLogger(logs)
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/human/", p.Handler())
	mux.Handle("/", http.NotFoundHandler())
	ts.Config.Handler = mux
	ts.Start()
	t.Cleanup(func() {
		closePages(t, p)
		ts.Close()
	})
	return p, ts, logs
}

// closePages closes p and fails t if it does not join within a deadline.
func closePages(t testing.TB, p *Pages) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.Close(ctx); err != nil {
		t.Errorf("Close: %v", err)
	}
}

// openSecret opens a secret page.
func openSecret(t testing.TB, p *Pages, s SecretSink) *Page {
	t.Helper()
	pg, err := p.Open(context.Background(), Request{
		Program: Program{Command: "sudo -k true", PID: 4242, Name: "sudo"},
		Message: "sudo needs your password to install the package",
		Prompt:  "[sudo] password for dev: ",
		Secret:  s,
	})
	if err != nil {
		t.Fatal(err)
	}
	return pg
}

// noRedirect is a client that shows redirects instead of following them.
var noRedirect = &http.Client{
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	Timeout:       30 * time.Second,
}

// request is one request to a page, with headers as a browser of the
// page's own origin would send unless changed.
type request struct {
	method string
	url    string
	body   string
	header map[string]string // "" deletes
}

func do(t testing.TB, origin string, rq request) (*http.Response, string) {
	t.Helper()
	var body io.Reader
	if rq.body != "" || rq.method == http.MethodPost {
		body = strings.NewReader(rq.body)
	}
	r, err := http.NewRequest(rq.method, rq.url, body)
	if err != nil {
		t.Fatal(err)
	}
	if rq.method == http.MethodPost {
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		r.Header.Set("Origin", origin)
	}
	for k, v := range rq.header {
		if k == "Host" {
			r.Host = v
			continue
		}
		if v == "" {
			r.Header.Del(k)
		} else {
			r.Header.Set(k, v)
		}
	}
	resp, err := noRedirect.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

// originOf is scheme://host of a URL.
func originOf(t testing.TB, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Scheme + "://" + u.Host
}

// submitForm is the body a browser sends for secret s.
func submitForm(s string) string {
	return url.Values{"secret": {s}, "action": {"submit"}}.Encode()
}

var errNotWaiting = errors.New("the program is no longer waiting for a password")

// newTestLogger logs everything, debug included, to w.
func newTestLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}
