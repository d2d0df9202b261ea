//go:build unix

package conformance

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// wire is a client speaking raw JSON-RPC lines to the binary over stdio,
// for what the SDK client hides (the answer to a cancelled request).
type wire struct {
	t     *testing.T
	stdin io.WriteCloser
	lines chan map[string]any
}

func startWire(t *testing.T) *wire {
	t.Helper()
	w := startRawWire(t)
	w.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"wire","version":"0"}}}`)
	w.next(func(m map[string]any) bool { return m["id"] == 1.0 })
	w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return w
}

// startRawWire starts the binary and sends it nothing.
func startRawWire(t *testing.T) *wire {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := newCmd(t)
	cmd.Env = append(os.Environ(), helperEnv+"="+self, "GORACE=atexit_sleep_ms=0")
	cmd.Stderr = testWriter{t}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w := &wire{t: t, stdin: stdin, lines: make(chan map[string]any, 100)}
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		defer close(w.lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				w.lines <- m
			}
		}
	}()
	t.Cleanup(func() {
		stdin.Close() // the server ends every process and exits
		for range w.lines {
		}
		<-readerDone
		_ = cmd.Wait()
	})
	return w
}

func (w *wire) send(line string) {
	w.t.Helper()
	if _, err := io.WriteString(w.stdin, line+"\n"); err != nil {
		w.t.Fatal(err)
	}
}

// next returns the first message that matches, dropping the others.
func (w *wire) next(match func(map[string]any) bool) map[string]any {
	w.t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case m, ok := <-w.lines:
			if !ok {
				w.t.Fatal("the server closed its output")
			}
			if match(m) {
				return m
			}
		case <-deadline:
			w.t.Fatal("timed out waiting for a message from the server")
		}
	}
}

// callTool sends tools/call and returns the structured answer.
func (w *wire) callTool(id int, tool string, args map[string]any, token string) {
	w.t.Helper()
	p := map[string]any{"name": tool, "arguments": args}
	if token != "" {
		p["_meta"] = map[string]any{"progressToken": token}
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": p})
	w.send(string(b))
}

func (w *wire) answer(id int) map[string]any {
	w.t.Helper()
	m := w.next(func(m map[string]any) bool { return m["id"] == float64(id) })
	res, _ := m["result"].(map[string]any)
	sc, _ := res["structuredContent"].(map[string]any)
	if sc == nil {
		w.t.Fatalf("answer %d has no structured content: %v", id, m)
	}
	return sc
}

func (w *wire) progress(token string) map[string]any {
	w.t.Helper()
	m := w.next(func(m map[string]any) bool {
		p, _ := m["params"].(map[string]any)
		return m["method"] == "notifications/progress" && p["progressToken"] == token
	})
	return m["params"].(map[string]any)
}

// TestCallBeforeInitialize: a call made before initialize (at a protocol
// that has one) is refused with invalid-request, -32600 (go-sdk v1.8.0
// answers code 0, which JSON-RPC does not define), runs nothing, and the
// session can then initialize and work.
//
// Spec: MCP lifecycle: the client sends initialize first; JSON-RPC 2.0:
// error codes are the defined ones or implementation-defined server
// errors, never 0.
func TestCallBeforeInitialize(t *testing.T) {
	w := startRawWire(t)
	w.callTool(1, "exec", map[string]any{"command": "echo too-early", "side_effects": []string{"NONE"}}, "")
	w.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	for _, id := range []float64{1, 2} {
		m := w.next(func(m map[string]any) bool { return m["id"] == id })
		e, _ := m["error"].(map[string]any)
		if e["code"] != -32600.0 || !strings.Contains(fmt.Sprint(e["message"]), "send initialize first") {
			t.Errorf("call %v before initialize: %v, want error -32600 saying to initialize", id, m)
		}
	}
	w.send(`{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"wire","version":"0"}}}`)
	w.next(func(m map[string]any) bool { return m["id"] == 3.0 })
	w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	w.callTool(4, "ps", map[string]any{"include_completed": true}, "")
	if ps, _ := w.answer(4)["processes"].([]any); len(ps) != 0 {
		t.Errorf("the refused exec ran: ps lists %v", ps)
	}
}

// TestCancelLeavesProcessRunning: a cancelled exec or wait returns at once
// (go-sdk v1.8.0 still answers a cancelled request, which shows when the
// handler returned) and the process carries on; progress arrives while the
// call blocks, with the newest output line.
//
// Spec: DESIGN go-sdk facts: "A cancelled call still gets a response; the handler's ctx is cancelled." (the process is not the request's to end).
func TestCancelLeavesProcessRunning(t *testing.T) {
	t.Parallel()
	w := startWire(t)
	w.callTool(2, "exec", map[string]any{"command": "echo started; exec sleep 60", "side_effects": []string{"NONE"},
		"yield_ms": 50000}, "exec-tok")
	if p := w.progress("exec-tok"); !strings.Contains(fmt.Sprint(p["message"]), ": started") {
		t.Errorf("progress message %q lacks the newest output line", p["message"])
	}
	start := time.Now()
	w.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"test"}}`)
	out := w.answer(2)
	t.Logf("exec returned %v after the cancel", time.Since(start))
	if out["status"] != "backgrounded" || out["yield_reason"] != "cancelled" {
		t.Errorf("cancelled exec answered %v", out)
	}
	id, _ := out["process_id"].(string)

	w.callTool(3, "wait", map[string]any{"process_id": id, "timeout_ms": 50000}, "wait-tok")
	w.progress("wait-tok")
	start = time.Now()
	w.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`)
	out = w.answer(3)
	t.Logf("wait returned %v after the cancel", time.Since(start))
	if out["status"] != "running" || out["yield_reason"] != "cancelled" {
		t.Errorf("cancelled wait answered %v", out)
	}

	w.callTool(4, "read", map[string]any{"process_id": id}, "")
	if out := w.answer(4); out["status"] != "running" {
		t.Errorf("after two cancelled calls the process is %v, want running", out["status"])
	}
}

// TestHTTP drives the binary over streamable HTTP: the token is required,
// exec round-trips, and SIGTERM ends every process before the server exits.
//
// Spec: README HTTP: "yieldshell --http ADDR serves the same tools over the MCP streamable HTTP transport" with a bearer token.
func TestHTTP(t *testing.T) {
	t.Parallel()
	statSources()
	h := startHTTP(t, t.Context())
	if cs, err := h.connect("wrong-token-0123456789"); err == nil {
		cs.Close()
		t.Fatal("connected with a wrong token")
	}
	res, err := http.Post(h.url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"exec","arguments":{"command":"echo no","side_effects":["NONE"]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized {
		t.Errorf("no token: status %d, want 401", res.StatusCode)
	}

	cs, err := h.connect(httpToken)
	if err != nil {
		t.Fatalf("connecting with the token: %v", err)
	}
	defer cs.Close()
	s := &server{t: t, cs: cs}
	s.exec("echo over http", nil).mustStatus(t, "completed")
	// The server's own credential does not reach the commands.
	if r := s.exec(`echo "${YIELDSHELL_HTTP_TOKEN:-unset}"`, nil); r.str("stdout") != "unset\n" {
		t.Errorf("a command sees YIELDSHELL_HTTP_TOKEN: %q", r.str("stdout"))
	}
	// Nor in the block the server started with, which /proc shows (issue 38).
	if runtime.GOOS == "linux" {
		cmd := fmt.Sprintf(`if grep -qa YIELDSHELL_HTTP_TOKEN= /proc/%d/environ; then echo leaked; else echo clean; fi`, h.cmd.Process.Pid)
		if r := s.exec(cmd, nil); r.str("stdout") != "clean\n" {
			t.Errorf("/proc/SERVER/environ: %q, want clean", r.str("stdout"))
		}
	}
	if r := s.call("ps", nil); !strings.Contains(r.text, "echo over http") {
		t.Errorf("ps over http: %s", r.text)
	}
	r := s.exec(helper("ignore-term"), map[string]any{"yield_ms": 0})
	pid := int(r.num("pid"))
	s.readUntil(r.str("process_id"), "ready")

	start := time.Now()
	if err := h.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := h.cmd.Wait(); err != nil {
		t.Errorf("server exit after SIGTERM: %v", err)
	}
	if el := time.Since(start); el > 4*time.Second {
		t.Errorf("server took %v to exit", el)
	}
	if alive(pid) || len(groupMembers(pid)) > 0 {
		t.Errorf("process %d survived the server", pid)
	}
}

// BenchmarkExecTransports compares an exec round trip over stdio and over
// streamable HTTP (loopback, bearer token) on the same binary.
func BenchmarkExecTransports(b *testing.B) {
	args := map[string]any{"command": "echo hello", "side_effects": []string{"NONE"}}
	run := func(b *testing.B, cs *mcp.ClientSession) {
		for b.Loop() {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "exec", Arguments: args})
			if err != nil || res.IsError {
				b.Fatalf("exec: %v %v", err, res)
			}
		}
	}
	b.Run("stdio", func(b *testing.B) { run(b, benchSession(b, "2025-06-18")) })
	b.Run("http", func(b *testing.B) {
		h := startHTTP(b, context.Background())
		cs, err := h.connect(httpToken)
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		run(b, cs)
	})
}

// TestCancelledCallKeepsProcess: at every protocol version, cancelling a
// blocking exec from the Go client leaves the process running and the
// server answering.
//
// Spec: DESIGN go-sdk facts: "the conformance suite runs on both" protocol versions; a cancelled call leaves the process running.
func TestCancelledCallKeepsProcess(t *testing.T) {
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() {
			_, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: "exec", Arguments: map[string]any{
				"command": "echo cancel-me; exec sleep 60", "side_effects": []string{"NONE"}, "yield_ms": 50000}})
			done <- err
		}()
		var id string
		eventually(t, 10*time.Second, "the exec to start", func() bool {
			for _, p := range s.call("ps", nil).m["processes"].([]any) {
				if e := p.(map[string]any); strings.Contains(fmt.Sprint(e["command"]), "cancel-me") {
					id = e["process_id"].(string)
					return true
				}
			}
			return false
		})
		t.Cleanup(func() { s.stopQuietly(id) })
		cancel()
		select {
		case err := <-done:
			if err == nil {
				t.Error("a cancelled call returned no error")
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the cancelled call did not return")
		}
		r := s.call("wait", map[string]any{"process_id": id, "timeout_ms": 100})
		if r.str("status") != "running" {
			t.Errorf("after the cancel the process is %q, want running", r.str("status"))
		}
	})
}

// TestBadLinesKeepTheServer: a line that is not JSON, not JSON-RPC, or over
// 16 MiB gets its JSON-RPC error; the server goes on serving, and the
// process it runs goes on running.
//
// Spec: DESIGN Errors: "Protocol errors are for malformed requests only" —
// a malformed line is answered, and ends nothing.
func TestBadLinesKeepTheServer(t *testing.T) {
	w := startWire(t)
	w.callTool(2, "exec", map[string]any{"command": "echo up; exec sleep 60", "side_effects": []string{"NONE"}, "yield_ms": 0}, "")
	id := w.answer(2)["process_id"]
	for i, tc := range []struct {
		line string
		code float64
	}{
		{"garbage", -32700},
		{"[]", -32600},
		{"{}", -32600},
		{`{"jsonrpc":"1.0","id":3,"method":"ping"}`, -32600},
		{`{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}`, -32600},
		{"\xff", -32700},
		{`{"jsonrpc":"2.0","id":4,"method":"ping","params":{"pad":"` + strings.Repeat("x", 17<<20) + `"}}`, -32600},
	} {
		w.send(tc.line)
		e := w.next(func(m map[string]any) bool { return m["error"] != nil })
		if code := e["error"].(map[string]any)["code"]; code != tc.code {
			t.Errorf("%.40q: error %v, want code %v", tc.line, e, tc.code)
		}
		ping := 100 + i
		w.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, ping))
		w.next(func(m map[string]any) bool { return m["id"] == float64(ping) })
	}
	w.callTool(200, "read", map[string]any{"process_id": id}, "")
	if r := w.answer(200); r["status"] != "running" {
		t.Errorf("the process after the bad lines: %v", r)
	}
}
