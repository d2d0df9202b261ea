//go:build unix

package main

import (
	"bufio"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/metrics"
	"github.com/yieldshell/yieldshell/internal/policy"
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
		{addr: "0.0.0.0:9", env: map[string]string{tokenEnv: "env-token-0123456789"}, wantAddr: "0.0.0.0:9", wantToken: "env-token-0123456789"},
		{addr: "0.0.0.0:9", file: file, wantAddr: "0.0.0.0:9", wantToken: "from-the-file-0123456789"},
		{addr: "0.0.0.0:9", env: map[string]string{tokenFileEnv: file, tokenEnv: "ignored-env-token-0123"}, wantAddr: "0.0.0.0:9", wantToken: "from-the-file-0123456789"},
		{addr: "9", file: empty, wantErr: "is empty"},
		{addr: "0.0.0.0:9", file: readable, wantAddr: "0.0.0.0:9", wantToken: "from-the-file-0123456789"}, // with a warning: see TestTokenFileModes
		{addr: "9", file: filepath.Join(dir, "missing"), wantErr: "reading the bearer token"},
		{addr: "9", env: map[string]string{tokenEnv: "short"}, wantErr: "too short"},
		{addr: "a:b:c", wantErr: "invalid --http address"},
	} {
		hc, err := loadHTTPConfig(tc.addr, tc.file, func(k string) string { return tc.env[k] })
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
		if hc.addr != tc.wantAddr {
			t.Errorf("%s: addr %q, want %q", tc.addr, hc.addr, tc.wantAddr)
		}
		if tc.wantToken == "generated" {
			if !hc.generated || len(hc.token) < 16 {
				t.Errorf("%s: want a generated token, got %+v", tc.addr, hc)
			}
		} else if hc.token != tc.wantToken || hc.generated {
			t.Errorf("%s: token %q (generated %v), want %q", tc.addr, hc.token, hc.generated, tc.wantToken)
		}
	}
}

// TestHTTPAuth: a request without the right token gets 401 and reaches
// nothing; with it, a session can start.
func TestHTTPAuth(t *testing.T) {
	const token = "right-token-0123456789"
	a, ts := serveTestHTTP(t, token)

	// A raw tools/call, as an attacker would send it: it must not run.
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"exec","arguments":{"command":"echo pwned","side_effects":["NONE"]}}}`
	for _, auth := range []string{"", "Bearer wrong-token-0123456789", "Basic " + token, "Bearer " + token + "x"} {
		req, _ := http.NewRequestWithContext(t.Context(), "POST", ts.URL+httpPath, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusUnauthorized {
			t.Errorf("Authorization %q: status %d, want 401", auth, res.StatusCode)
		}
	}
	if n := len(a.mgr.List()); n != 0 {
		t.Errorf("%d processes started by unauthorised requests", n)
	}

	connect := func(tok string) (*mcp.ClientSession, error) {
		tr := &mcp.StreamableClientTransport{Endpoint: ts.URL + httpPath,
			HTTPClient: &http.Client{Transport: bearer{tok}}}
		return mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).Connect(t.Context(), tr, nil)
	}
	if cs, err := connect("wrong-token-0123456789"); err == nil {
		cs.Close()
		t.Error("a client with the wrong token connected")
	}
	cs, err := connect(token)
	if err != nil {
		t.Fatalf("connecting with the token: %v", err)
	}
	defer cs.Close()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "exec",
		Arguments: map[string]any{"command": "echo over-http", "side_effects": []string{"NONE"}}})
	if err != nil || res.IsError {
		t.Fatalf("exec over http: %v %+v", err, res)
	}
	if out := res.StructuredContent.(map[string]any); out["stdout"] != "over-http\n" {
		t.Errorf("exec over http: %v", out)
	}
}

// serveTestHTTP serves a new app's HTTP handler with token until the test
// ends.
func serveTestHTTP(t *testing.T, token string) (*app, *httptest.Server) {
	t.Helper()
	cfg, err := policy.Load(func(string) string { return "" }, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a, err := newApp(cfg, loggers{stderr: slog.DiscardHandler, sdk: slog.New(slog.DiscardHandler)}, oneCall)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.shutdown)
	ts := httptest.NewServer(httpHandler(a.srv, a.metrics, token))
	t.Cleanup(ts.Close)
	return a, ts
}

// bearer adds the token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// testHTTP serves a bare MCP server through httpServer and a capped
// listener, with hc's limits, and returns its address.
func testHTTP(t *testing.T, hc *httpConfig) string {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "0"}, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := httpServer(srv, metrics.New(nil), hc) // never scraped here
	done := make(chan error, 1)
	go func() { done <- hs.Serve(newCapListener(ln, hc.maxConns)) }()
	t.Cleanup(func() { hs.Close(); <-done })
	return ln.Addr().String()
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
	addr := testHTTP(t, &httpConfig{token: token, maxConns: 8, maxSessions: 8,
		readHeader: time.Second, read: time.Second, idle: 100 * time.Millisecond})
	request := func(auth string) (net.Conn, *http.Response) {
		t.Helper()
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\n%s\r\n", httpPath, addr, auth)
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
	addr := testHTTP(t, &httpConfig{token: token, maxConns: 8, maxSessions: 1,
		readHeader: time.Second, read: time.Second, idle: time.Second})
	connect := func() (*mcp.ClientSession, error) {
		tr := &mcp.StreamableClientTransport{Endpoint: "http://" + addr + httpPath,
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

// TestCapListener: with the cap reached, Accept waits until a connection
// closes, and Close ends a waiting Accept.
func TestCapListener(t *testing.T) {
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := newCapListener(inner, 1)
	defer ln.Close()
	for range 2 {
		c, err := net.Dial("tcp", inner.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
	}
	first, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	select {
	case <-accepted:
		t.Fatal("a second connection was accepted with a cap of one")
	case <-time.After(50 * time.Millisecond): // a bound on a wrong answer, not synchronisation
	}
	first.Close()
	if c := <-accepted; c == nil {
		t.Error("Accept failed after the slot was given back")
	} else {
		c.Close()
	}
	waiting := make(chan error, 1)
	go func() {
		_, err := ln.Accept()
		waiting <- err
	}()
	if err := ln.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := <-waiting; err == nil {
		t.Error("Accept after Close succeeded")
	}
}

// TestHTTPCapsFromEnv: the caps come from the environment, and a value
// that is not a number above 0 is refused naming the variable.
func TestHTTPCapsFromEnv(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	hc, err := loadHTTPConfig("9", "", env(map[string]string{maxConnsEnv: "10", maxSessionsEnv: "3"}))
	if err != nil || hc.maxConns != 10 || hc.maxSessions != 3 {
		t.Errorf("caps from the environment: %+v, %v", hc, err)
	}
	if hc, err := loadHTTPConfig("9", "", env(nil)); err != nil || hc.maxConns != defaultMaxConns || hc.maxSessions != defaultMaxSessions {
		t.Errorf("default caps: %+v, %v", hc, err)
	}
	for _, bad := range []string{"0", "-1", "many"} {
		if _, err := loadHTTPConfig("9", "", env(map[string]string{maxSessionsEnv: bad})); err == nil || !strings.Contains(err.Error(), maxSessionsEnv) {
			t.Errorf("%s=%q: %v, want an error naming it", maxSessionsEnv, bad, err)
		}
	}
}

// TestHTTPOps: /healthz answers without a token; /metrics needs it and
// counts what a few calls did.
func TestHTTPOps(t *testing.T) {
	const token = "right-token-0123456789"
	_, ts := serveTestHTTP(t, token)
	get := func(path, tok string) (int, string) {
		t.Helper()
		req, _ := http.NewRequestWithContext(t.Context(), "GET", ts.URL+path, nil)
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	if code, body := get("/healthz", ""); code != 200 || body != "ok\n" {
		t.Errorf("/healthz: %d %q", code, body)
	}
	if code, _ := get("/metrics", ""); code != http.StatusUnauthorized {
		t.Errorf("/metrics without the token: %d, want 401", code)
	}

	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).Connect(t.Context(),
		&mcp.StreamableClientTransport{Endpoint: ts.URL + httpPath, HTTPClient: &http.Client{Transport: bearer{token}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	call := func(tool string, args map[string]any) {
		t.Helper()
		if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args}); err != nil {
			t.Fatalf("%s %v: %v", tool, args, err)
		}
	}
	none := []string{"NONE"}
	call("exec", map[string]any{"command": "echo one", "side_effects": none})
	call("exec", map[string]any{"command": "echo two", "side_effects": none})
	call("exec", map[string]any{"command": "echo refused", "side_effects": []string{}})
	call("exec", map[string]any{"command": "sleep 60", "side_effects": none, "name": "sleeper", "yield_ms": 0})
	call("restart", map[string]any{"process_id": "sleeper"})
	call("exec", map[string]any{"command": `read -p "name? " x`, "side_effects": none, "shell": "bash"})
	call("ps", map[string]any{})

	scrape := func() map[string]float64 {
		t.Helper()
		code, body := get("/metrics", token)
		if code != 200 {
			t.Fatalf("/metrics: %d %s", code, body)
		}
		series := map[string]float64{}
		for line := range strings.Lines(body) {
			k, v, ok := strings.Cut(strings.TrimSpace(line), " ")
			if f, err := strconv.ParseFloat(v, 64); ok && err == nil && !strings.HasPrefix(k, "#") {
				series[k] = f
			}
		}
		return series
	}
	series := scrape()
	waits := 0.0
	for k, v := range series {
		if strings.HasPrefix(k, "yieldshell_input_waits_total{") {
			waits += v
		}
	}
	for k, want := range map[string]float64{
		`yieldshell_execs_total{status="completed"}`:           2,
		`yieldshell_execs_total{status="backgrounded"}`:        2, // the sleeper and the read
		`yieldshell_execs_total{status="failed_to_start"}`:     1,
		`yieldshell_refusals_total{reason="side_effects"}`:     1,
		`yieldshell_tool_answer_seconds_count{tool="exec"}`:    5,
		`yieldshell_tool_answer_seconds_count{tool="restart"}`: 1,
		`yieldshell_tool_answer_seconds_count{tool="ps"}`:      1,
		`yieldshell_processes{status="completed"}`:             2,
		`yieldshell_processes{status="running"}`:               2, // the restarted sleeper and the read
		`yieldshell_processes{status="stopped"}`:               1, // the sleeper's first run
		`yieldshell_restarts`:                                  1,
		`yieldshell_output_evicted_bytes_total`:                0,
	} {
		if got, ok := series[k]; !ok || got != want {
			t.Errorf("%s = %v (present %v), want %v", k, got, ok, want)
		}
	}
	if b := series[`yieldshell_output_bytes_total`]; b < float64(len("one\ntwo\n")) {
		t.Errorf("yieldshell_output_bytes_total = %v, want at least the two echoes (clean text: LF line ends)", b)
	}
	if waits != 1 {
		t.Errorf("input waits by signal: %v, want 1 in all", waits)
	}

	// Forgetting finished processes leaves the byte counter where it was.
	call("cleanup", map[string]any{"completed_older_than_ms": 0, "stopped_older_than_ms": 0})
	after := scrape()
	if after[`yieldshell_processes{status="completed"}`] != 0 ||
		after[`yieldshell_output_bytes_total`] < series[`yieldshell_output_bytes_total`] {
		t.Errorf("after cleanup: %v completed processes, %v bytes logged (before: %v)",
			after[`yieldshell_processes{status="completed"}`], after[`yieldshell_output_bytes_total`], series[`yieldshell_output_bytes_total`])
	}
}

// TestHealthcheck: the healthcheck command asks /healthz on the address
// it is given or on YIELDSHELL_HTTP_ADDR, reaching an every-interface
// address over loopback, so the image's HEALTHCHECK follows the port.
func TestHealthcheck(t *testing.T) {
	_, ts := serveTestHTTP(t, "right-token-0123456789")
	_, port, err := net.SplitHostPort(strings.TrimPrefix(ts.URL, "http://"))
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
			c := &cli{stdout: io.Discard, stderr: &stderr,
				getenv: func(k string) string { return map[string]string{httpAddrEnv: tc.env}[k] }}
			if got := healthCmd(t.Context(), c, tc.args); got != tc.want {
				t.Errorf("exit %d, want %d (%s)", got, tc.want, stderr.String())
			}
		})
	}
}

// TestHTTPAddrVariable: YIELDSHELL_HTTP_ADDR serves HTTP as --http does
// (here refused before anything starts: off loopback it needs a token).
func TestHTTPAddrVariable(t *testing.T) {
	var stderr strings.Builder
	c := &cli{stdout: io.Discard, stderr: &stderr,
		getenv: func(k string) string { return map[string]string{httpAddrEnv: "0.0.0.0:9"}[k] }}
	if code := serveCmd(t.Context(), c, nil); code != 2 || !strings.Contains(stderr.String(), "--http 0.0.0.0:9 listens beyond this machine") {
		t.Errorf("exit %d, %q; want 2 and the token refusal", code, stderr.String())
	}
}

// TestHTTPProtocols: over HTTP a client gets the protocol it asks for,
// the sessionless 2026-07-28 (the Go SDK's default) as well as the
// session-based ones, and every client drives the same processes.
func TestHTTPProtocols(t *testing.T) {
	const token = "right-token-0123456789"
	_, ts := serveTestHTTP(t, token)
	var ids []string
	for _, version := range []string{"2025-06-18", "2025-11-25", ""} {
		tr := &mcp.StreamableClientTransport{Endpoint: ts.URL + httpPath, HTTPClient: &http.Client{Transport: bearer{token}}}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).Connect(t.Context(), tr,
			&mcp.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			t.Fatalf("protocol %q: %v", version, err)
		}
		t.Cleanup(func() { cs.Close() })
		want := version
		if want == "" {
			want = sessionlessProtocol
		}
		if got := cs.InitializeResult().ProtocolVersion; got != want {
			t.Errorf("asked for %q, got protocol %q, want %q", version, got, want)
		}
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "exec",
			Arguments: map[string]any{"command": "echo " + want, "side_effects": []string{"NONE"}, "name": "p" + strconv.Itoa(len(ids))}})
		if err != nil || res.IsError {
			t.Fatalf("exec at %s: %v %+v", want, err, res)
		}
		ids = append(ids, res.StructuredContent.(map[string]any)["process_id"].(string))
		// What the earlier clients started is here too.
		res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "ps", Arguments: map[string]any{"include_completed": true}})
		if err != nil || res.IsError {
			t.Fatalf("ps at %s: %v %+v", want, err, res)
		}
		for _, id := range ids {
			if !strings.Contains(fmt.Sprint(res.StructuredContent), id) {
				t.Errorf("ps at %s lacks %s: %v", want, id, res.StructuredContent)
			}
		}
	}
}
