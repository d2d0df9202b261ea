//go:build unix

package main

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/app"
	"github.com/yieldshell/yieldshell/internal/httpserve"
	"github.com/yieldshell/yieldshell/internal/policy"
)

// TestHTTPAuth: a request without the right token gets 401 and reaches
// nothing; with it, a session can start.
func TestHTTPAuth(t *testing.T) {
	const token = "right-token-0123456789"
	a, ts := serveTestHTTP(t, token)

	// A raw tools/call, as an attacker would send it: it must not run.
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"exec","arguments":{"command":"echo pwned","side_effects":["NONE"]}}}`
	for _, auth := range []string{"", "Bearer wrong-token-0123456789", "Basic " + token, "Bearer " + token + "x"} {
		req, _ := http.NewRequestWithContext(t.Context(), "POST", ts.URL+httpserve.Path, strings.NewReader(body))
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
		// The challenge names the scheme, and no OAuth metadata: there is
		// none to discover (issue 41 item 3).
		if ch := res.Header.Values("WWW-Authenticate"); len(ch) != 1 || !strings.HasPrefix(ch[0], "Bearer") || strings.Contains(ch[0], "resource_metadata") {
			t.Errorf("Authorization %q: WWW-Authenticate %q, want one Bearer challenge", auth, ch)
		}
	}
	if n := len(a.Manager.List()); n != 0 {
		t.Errorf("%d processes started by unauthorised requests", n)
	}

	connect := func(tok string) (*mcp.ClientSession, error) {
		tr := &mcp.StreamableClientTransport{Endpoint: ts.URL + httpserve.Path,
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
func serveTestHTTP(t *testing.T, token string) (*app.App, *httptest.Server) {
	t.Helper()
	cfg, err := policy.Load(func(string) string { return "" }, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a, err := app.New(cfg, app.Loggers{Stderr: slog.DiscardHandler, SDK: slog.New(slog.DiscardHandler)}, app.OneCall, "test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Shutdown)
	ts := httptest.NewServer(httpServer(a, &httpserve.Config{Token: token, MaxConns: 8, MaxSessions: 8}).Handler())
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
		&mcp.StreamableClientTransport{Endpoint: ts.URL + httpserve.Path, HTTPClient: &http.Client{Transport: bearer{token}}}, nil)
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

// TestHTTPAddrVariable: YIELDSHELL_HTTP_ADDR serves HTTP as --http does
// (here refused before anything starts: off loopback it needs a token).
func TestHTTPAddrVariable(t *testing.T) {
	var stderr strings.Builder
	c := &cli{stdout: io.Discard, stderr: &stderr,
		getenv: func(k string) string { return map[string]string{httpserve.AddrEnv: "0.0.0.0:9"}[k] }}
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
		tr := &mcp.StreamableClientTransport{Endpoint: ts.URL + httpserve.Path, HTTPClient: &http.Client{Transport: bearer{token}}}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).Connect(t.Context(), tr,
			&mcp.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			t.Fatalf("protocol %q: %v", version, err)
		}
		t.Cleanup(func() { cs.Close() })
		want := version
		if want == "" {
			want = httpserve.SessionlessProtocol
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
