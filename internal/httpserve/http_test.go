//go:build unix

package httpserve

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/poll"
)

func TestLoadHTTPConfig(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "token")
	if err := os.WriteFile(file, []byte("from-the-file-0123456789\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	readable := filepath.Join(dir, "readable")
	if err := os.WriteFile(readable, []byte("from-the-file-0123456789\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		addr, file string
		env        map[string]string
		wantAddr   string
		wantToken  string // "generated" for a generated one
		wantErr    string
	}{
		{addr: "8080", wantAddr: "127.0.0.1:8080", wantToken: "generated"},
		{addr: ":8080", wantAddr: "127.0.0.1:8080", wantToken: "generated"},
		{addr: "localhost:9", wantAddr: "localhost:9", wantToken: "generated"},
		{addr: "[::1]:9", wantAddr: "[::1]:9", wantToken: "generated"},
		{addr: "0.0.0.0:9", wantErr: "needs a bearer token"},
		{addr: "192.0.2.1:9", wantErr: "needs a bearer token"},
		{addr: "0.0.0.0:9", env: map[string]string{TokenEnv: "env-token-0123456789"}, wantAddr: "0.0.0.0:9", wantToken: "env-token-0123456789"},
		{addr: "0.0.0.0:9", file: file, wantAddr: "0.0.0.0:9", wantToken: "from-the-file-0123456789"},
		{addr: "0.0.0.0:9", env: map[string]string{TokenFileEnv: file, TokenEnv: "ignored-env-token-0123"}, wantAddr: "0.0.0.0:9", wantToken: "from-the-file-0123456789"},
		{addr: "9", file: empty, wantErr: "is empty"},
		{addr: "0.0.0.0:9", file: readable, wantAddr: "0.0.0.0:9", wantToken: "from-the-file-0123456789"}, // with a warning: see TestTokenFileModes
		{addr: "9", file: filepath.Join(dir, "missing"), wantErr: "reading the bearer token"},
		{addr: "9", env: map[string]string{TokenEnv: "short"}, wantErr: "too short"},
		{addr: "a:b:c", wantErr: "invalid --http address"},
	} {
		hc, err := LoadConfig(tc.addr, tc.file, func(k string) string { return tc.env[k] })
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s %v: error %v, want %q", tc.addr, tc.env, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s %v: %v", tc.addr, tc.env, err)
			continue
		}
		if hc.Addr != tc.wantAddr {
			t.Errorf("%s: addr %q, want %q", tc.addr, hc.Addr, tc.wantAddr)
		}
		if tc.wantToken == "generated" {
			if !hc.Generated || len(hc.Token) < 16 {
				t.Errorf("%s: want a generated token, got %+v", tc.addr, hc)
			}
		} else if hc.Token != tc.wantToken || hc.Generated {
			t.Errorf("%s: token %q (generated %v), want %q", tc.addr, hc.Token, hc.Generated, tc.wantToken)
		}
	}
}

// testHTTP serves a bare MCP server through Serve, with hc's limits, and returns its address.
func testHTTP(t *testing.T, hc *Config) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{MCP: mcp.NewServer(&mcp.Implementation{Name: "t", Version: "0"}, nil),
		Metrics: okHandler(), Health: okHandler(), Log: slog.New(slog.DiscardHandler), Config: hc}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	t.Cleanup(func() { cancel(); <-done })
	return ln.Addr().String()
}

// okHandler answers as /healthz does.
func okHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok\n") })
}

// bearer adds the token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// closedWithin reports whether the server closes c within d.
func closedWithin(c net.Conn, d time.Duration) bool {
	_ = c.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, c)
	return err == nil // EOF: closed; a timeout is an error
}

// TestHTTPHoldsNoConnection: a refused request's connection is closed at
// once, and a kept-alive connection that goes quiet is closed after the
// idle timeout.
func TestHTTPHoldsNoConnection(t *testing.T) {
	const token = "right-token-0123456789"
	addr := testHTTP(t, &Config{Token: token, MaxConns: 8, MaxSessions: 8,
		ReadHeader: time.Second, Read: time.Second, Idle: 100 * time.Millisecond})
	path := Path
	request := func(auth string) (net.Conn, *http.Response) {
		t.Helper()
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\n%s\r\n", path, addr, auth)
		res, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return c, res
	}
	c, res := request("")
	if res.StatusCode != http.StatusUnauthorized || !res.Close {
		t.Errorf("no token: status %d, close %v; want 401, close", res.StatusCode, res.Close)
	}
	if !closedWithin(c, 5*time.Second) {
		t.Error("the refused connection stays open")
	}
	// /healthz answers everyone, once per connection without the token.
	path = "/healthz"
	c, res = request("")
	if res.StatusCode != http.StatusOK || !res.Close || !closedWithin(c, 5*time.Second) {
		t.Errorf("/healthz without the token: status %d, close %v; want 200 and the connection closed", res.StatusCode, res.Close)
	}
	c, res = request("Authorization: Bearer " + token + "\r\n")
	if res.StatusCode != http.StatusOK || res.Close {
		t.Errorf("/healthz with the token: status %d, close %v; want a kept-alive 200", res.StatusCode, res.Close)
	}
	c.Close()
	path = Path
	c, res = request("Authorization: Bearer " + token + "\r\n")
	if res.StatusCode == http.StatusUnauthorized || res.Close {
		t.Fatalf("with the token: status %d, close %v; want a kept-alive answer", res.StatusCode, res.Close)
	}
	if !closedWithin(c, 5*time.Second) {
		t.Error("a quiet kept-alive connection stays open past the idle timeout")
	}
}

// TestHTTPCapsSessions: with one session open, a request for another is
// refused with 503; the open one still works. (At 2025-06-18: the SDK's
// newer protocol has no sessions, and each of its requests counts while it
// runs.)
func TestHTTPCapsSessions(t *testing.T) {
	const token = "right-token-0123456789"
	addr := testHTTP(t, &Config{Token: token, MaxConns: 8, MaxSessions: 1,
		ReadHeader: time.Second, Read: time.Second, Idle: time.Second})
	connect := func() (*mcp.ClientSession, error) {
		tr := &mcp.StreamableClientTransport{Endpoint: "http://" + addr + Path,
			HTTPClient: &http.Client{Transport: bearer{token}}}
		return mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).Connect(t.Context(), tr,
			&mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	}
	first, err := connect()
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	if second, err := connect(); err == nil {
		second.Close()
		t.Error("a second session opened with a cap of one")
	} else if !strings.Contains(err.Error(), "503") && !strings.Contains(err.Error(), "Service Unavailable") {
		t.Errorf("the refusal: %v; want 503", err)
	}
	if err := first.Ping(t.Context(), nil); err != nil {
		t.Errorf("the open session after the refusal: %v", err)
	}
}

// TestGuardShedsOldestAnonymous: past the cap, a new connection sheds
// the oldest anonymous one that has sent nothing and is past the grace;
// past the hard cap, the oldest silent one however young, else the oldest
// idle one. One that showed the token or answers a request is not shed.
func TestGuardShedsOldestAnonymous(t *testing.T) {
	g := newGuard(8, 3, 0)
	g.hardCap = 5
	now := time.Now()
	var conns []*guardedConn
	// admit admits a new connection at now, and returns the index of the
	// one it shed, or -1.
	admit := func() int {
		t.Helper()
		a, b := net.Pipe()
		t.Cleanup(func() { a.Close(); b.Close() })
		c := &guardedConn{Conn: a, g: g, accepted: now}
		conns = append(conns, c)
		shed := g.admit(c)
		if shed == nil {
			return -1
		}
		shed.Close()
		return slices.Index(conns, shed)
	}
	for i := range 5 {
		if s := admit(); s != -1 {
			t.Fatalf("admitting %d, all within the grace, shed %d", i, s)
		}
	}
	g.setActive(conns[0], true)
	conns[1].spoke = true // it sent a request's first bytes
	now = now.Add(g.grace)
	if s := admit(); s != 2 { // 5
		t.Errorf("past the cap, shed %d; want 2, the oldest silent one (0 answers a request, 1 spoke)", s)
	}
	if err := g.authenticate(t.Context(), conns[3]); err != nil {
		t.Fatal(err)
	}
	if s := admit(); s != 4 { // 6
		t.Errorf("shed %d; want 4, the last silent one past the grace (3 showed the token)", s)
	}
	if s := admit(); s != -1 { // 7
		t.Errorf("shed %d; want none: the rest answer a request, spoke or are within the grace", s)
	}
	if s := admit(); s != 5 { // 8: 0 1 5 6 7 8, past the hard cap
		t.Errorf("past the hard cap, shed %d; want 5, the oldest silent one however young", s)
	}
	if s := admit(); s != 6 { // 9: 0 1 6 7 8 9
		t.Errorf("past the hard cap, shed %d; want 6, the oldest silent one, not 1 which spoke", s)
	}
	for _, c := range conns[7:] {
		c.spoke = true
	}
	if s := admit(); s != 10 { // 10: 0 1 7 8 9 10, only 10 silent
		t.Errorf("past the hard cap, shed %d; want 10, the only silent one", s)
	}
	a, b := net.Pipe()
	t.Cleanup(func() { a.Close(); b.Close() })
	spoke := &guardedConn{Conn: a, g: g, accepted: now, spoke: true}
	conns = append(conns, spoke)
	if shed := g.admit(spoke); slices.Index(conns, shed) != 1 { // 11: 0 1 7 8 9 11, all spoke
		t.Errorf("past the hard cap with none silent, shed %d; want 1, the oldest idle one", slices.Index(conns, shed))
	}
}

// TestGuardCapsAuthenticated: with every slot taken, a request with the
// token waits until a connection that has one closes, or its client
// gives up.
func TestGuardCapsAuthenticated(t *testing.T) {
	g := newGuard(1, 8, 0)
	conn := func() *guardedConn {
		a, b := net.Pipe()
		t.Cleanup(func() { a.Close(); b.Close() })
		c := &guardedConn{Conn: a, g: g}
		g.admit(c)
		return c
	}
	first, second := conn(), conn()
	if err := g.authenticate(t.Context(), first); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if err := g.authenticate(ctx, second); err == nil {
		t.Fatal("a second connection took the only slot")
	}
	got := make(chan error, 1)
	go func() { got <- g.authenticate(t.Context(), second) }()
	first.Close()
	if err := <-got; err != nil || !g.authenticated(second) {
		t.Errorf("after the first closed: %v, authenticated %v", err, g.authenticated(second))
	}
}

// TestHTTPCapsFromEnv: the caps come from the environment, and a value
// that is not a number above 0 is refused naming the variable.
func TestHTTPCapsFromEnv(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	hc, err := LoadConfig("9", "", env(map[string]string{MaxConnsEnv: "10", MaxSessionsEnv: "3"}))
	if err != nil || hc.MaxConns != 10 || hc.MaxSessions != 3 {
		t.Errorf("caps from the environment: %+v, %v", hc, err)
	}
	if hc, err := LoadConfig("9", "", env(nil)); err != nil || hc.MaxConns != DefaultMaxConns || hc.MaxSessions != DefaultMaxSessions {
		t.Errorf("default caps: %+v, %v", hc, err)
	}
	for _, bad := range []string{"0", "-1", "many"} {
		if _, err := LoadConfig("9", "", env(map[string]string{MaxSessionsEnv: bad})); err == nil || !strings.Contains(err.Error(), MaxSessionsEnv) {
			t.Errorf("%s=%q: %v, want an error naming it", MaxSessionsEnv, bad, err)
		}
	}
}

// TestHealthcheck: the healthcheck command asks /healthz on the address
// it is given or on YIELDSHELL_HTTP_ADDR, reaching an every-interface
// address over loopback, so the image's HEALTHCHECK follows the port.
func TestHealthcheck(t *testing.T) {
	addr := testHTTP(t, &Config{Token: "right-token-0123456789", MaxConns: 8, MaxSessions: 8,
		ReadHeader: time.Second, Read: time.Second, Idle: time.Second})
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedAddr := closed.Addr().String()
	closed.Close()
	for _, tc := range []struct {
		name string
		args []string
		env  string
		want int
	}{
		{name: "argument", args: []string{"127.0.0.1:" + port}, want: 0},
		{name: "bare_port", args: []string{port}, want: 0},
		{name: "variable_every_interface", env: "0.0.0.0:" + port, want: 0},
		{name: "argument_wins", args: []string{port}, env: closedAddr, want: 0},
		{name: "nobody_listens", env: closedAddr, want: 1},
		{name: "no_address", want: 2},
		{name: "bad_address", args: []string{"a:b:c"}, want: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stderr strings.Builder
			getenv := func(k string) string { return map[string]string{AddrEnv: tc.env}[k] }
			if got := HealthCmd(t.Context(), getenv, tc.args, &stderr); got != tc.want {
				t.Errorf("exit %d, want %d (%s)", got, tc.want, stderr.String())
			}
		})
	}
}

// TestMetricsChecksHost: /metrics, like /mcp, refuses a request that
// reached loopback under another Host (DNS rebinding), even with the
// token (issue 30 item 7); under a loopback Host it answers.
func TestMetricsChecksHost(t *testing.T) {
	const token = "right-token-0123456789"
	addr := testHTTP(t, &Config{Token: token, MaxConns: 8, MaxSessions: 8,
		ReadHeader: time.Second, Read: time.Second, Idle: time.Second})
	for _, tc := range []struct {
		path, host string
		want       int
	}{
		{"/metrics", "evil.example", http.StatusForbidden},
		{"/metrics", "evil.example:80", http.StatusForbidden},
		{"/metrics", addr, http.StatusOK},
		{"/metrics", "localhost", http.StatusOK},
		{Path, "evil.example", http.StatusForbidden},
	} {
		req, _ := http.NewRequestWithContext(t.Context(), "GET", "http://"+addr+tc.path, nil)
		req.Host = tc.host
		req.Header.Set("Authorization", "Bearer "+token)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != tc.want {
			t.Errorf("GET %s, Host %s: %d, want %d", tc.path, tc.host, res.StatusCode, tc.want)
		}
	}
}

// TestGuardCapFollowsFDLimit: the anonymous connections kept are a
// quarter of the descriptor limit, however many arrive at once, so the
// client with the token always has descriptors left (issue 38).
func TestGuardCapFollowsFDLimit(t *testing.T) {
	for _, c := range []struct{ fds, want int }{
		{0, anonHardCap}, {64, anonMinCap}, {1024, 256}, {8192, 2048}, {1 << 20, anonHardCap},
	} {
		if got := anonCap(c.fds); got != c.want {
			t.Errorf("anonCap(%d) = %d, want %d", c.fds, got, c.want)
		}
	}
	g := newGuard(8, 128, 1024)
	a, b := net.Pipe()
	t.Cleanup(func() { a.Close(); b.Close() })
	now := time.Now()
	for range 3000 { // all young and silent: idle connections opened at once
		if shed := g.admit(&guardedConn{Conn: a, g: g, accepted: now}); shed != nil {
			shed.closed = true // as Close would, without closing the shared pipe
		}
	}
	if n := g.anon.Len(); n > 256 {
		t.Errorf("%d anonymous connections kept under a limit of 1024 descriptors, want at most 256", n)
	}
}

// TestHTTPFreesGoneSessions: the session of a client that went away
// without ending it (its connections closed) gives back its slot after the
// grace; a client that keeps its event stream open keeps its session.
func TestHTTPFreesGoneSessions(t *testing.T) {
	const token = "right-token-0123456789"
	const grace = 200 * time.Millisecond
	srv := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "0"}, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{MCP: srv, Metrics: okHandler(), Health: okHandler(), Log: slog.New(slog.DiscardHandler),
		Config: &Config{Token: token, MaxConns: 8, MaxSessions: 2, ReadHeader: time.Second, Read: time.Second,
			Idle: time.Minute, SessionGrace: grace}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	t.Cleanup(func() { cancel(); <-done })
	var mu sync.Mutex
	var conns []net.Conn
	connect := func(record bool) *mcp.ClientSession {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
			if err == nil && record {
				mu.Lock()
				conns = append(conns, c)
				mu.Unlock()
			}
			return c, err
		}
		ct := &mcp.StreamableClientTransport{Endpoint: "http://" + ln.Addr().String() + Path,
			HTTPClient: &http.Client{Transport: bearerOver{token, tr}}}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).Connect(t.Context(), ct,
			&mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cs.Close() })
		return cs
	}
	count := func() int {
		n := 0
		for range srv.Sessions() {
			n++
		}
		return n
	}
	stays := connect(false)
	connect(true)
	if n := count(); n != 2 {
		t.Fatalf("%d sessions, want 2", n)
	}
	// The second client goes away: its connections close, no DELETE.
	mu.Lock()
	for _, c := range conns {
		c.Close()
	}
	mu.Unlock()
	poll.Until(t, 20*grace, "the gone client's session to end", func() bool { return count() == 1 })
	if err := stays.Ping(t.Context(), nil); err != nil {
		t.Errorf("the client that stayed: %v", err)
	}
	connect(false) // the slot is free again
}
