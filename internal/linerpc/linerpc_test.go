package linerpc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serve runs a bare MCP server over a Transport of two pipes and returns
// the client's ends: what it writes, and its answers line by line.
func serve(t testing.TB, maxFrame int) (io.WriteCloser, *bufio.Scanner) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	srv := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "0"}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx, &Transport{Reader: inR, Writer: outW, MaxFrame: maxFrame}) }()
	t.Cleanup(func() {
		cancel()
		inW.Close()
		outR.Close()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("the server did not stop within 10 s of its input closing")
		}
	})
	sc := bufio.NewScanner(outR)
	sc.Buffer(nil, 1<<20)
	return inW, sc
}

// answer reads the next answer, failing after 10 s.
func answer(t testing.TB, sc *bufio.Scanner) map[string]any {
	t.Helper()
	got := make(chan map[string]any, 1)
	go func() {
		var m map[string]any
		if sc.Scan() {
			_ = json.Unmarshal(sc.Bytes(), &m)
		}
		got <- m
	}()
	select {
	case m := <-got:
		if m == nil {
			t.Fatal("the server closed its output or wrote a line that is not JSON")
		}
		return m
	case <-time.After(10 * time.Second):
		t.Fatal("no answer within 10 s")
	}
	return nil
}

// ping sends a ping and checks that the answer to it comes.
func ping(t testing.TB, w io.Writer, sc *bufio.Scanner, id int) {
	t.Helper()
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n", id)
	if m := answer(t, sc); m["id"] != float64(id) || m["result"] == nil {
		t.Fatalf("answer to ping %d: %v", id, m)
	}
}

// TestBadLinesAreAnsweredAndSkipped: each kind of bad line gets its
// JSON-RPC error, and the server goes on serving.
func TestBadLinesAreAnsweredAndSkipped(t *testing.T) {
	w, sc := serve(t, 1<<10)
	for i, tc := range []struct {
		line string
		code float64
		id   any
	}{
		{"garbage", -32700, nil},
		{"\xff", -32700, nil},
		{`{"jsonrpc":"2.0","id":1,"method":`, -32700, nil},
		{"[]", -32600, nil},
		{"{}", -32600, nil},
		{"5", -32600, nil},
		{"null", -32600, nil},
		{`{"jsonrpc":"1.0","id":7,"method":"ping"}`, -32600, float64(7)},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, -32600, nil},
		{`{"jsonrpc":"2.0","id":"x","method":5}`, -32600, "x"},
		{`[{"jsonrpc":"2.0","id":8,"method":"ping"}]`, -32600, nil}, // no batches without an old initialize
		{`{"jsonrpc":"2.0","id":9,"method":"ping"} {"jsonrpc":"2.0","id":10,"method":"ping"}`, -32700, nil},
		{strings.Repeat("x", 5000), -32600, nil},
		{`{"jsonrpc":"2.0","id":11,"method":"ping","params":{"pad":"` + strings.Repeat("y", 2000) + `"}}`, -32600, nil},
	} {
		fmt.Fprintln(w, tc.line)
		m := answer(t, sc)
		e, _ := m["error"].(map[string]any)
		if e == nil || e["code"] != tc.code || m["id"] != tc.id {
			t.Errorf("%.40q: answer %v; want code %v, id %v", tc.line, m, tc.code, tc.id)
		}
		ping(t, w, sc, 100+i)
	}
	// White space around a message is not an error.
	fmt.Fprint(w, "\n  \t\n")
	fmt.Fprintln(w, `  {"jsonrpc":"2.0","id":200,"method":"ping"}  `)
	if m := answer(t, sc); m["id"] != float64(200) || m["result"] == nil {
		t.Errorf("ping with spaces around it: %v", m)
	}
}

// TestOversizedFrameIsNotKept: a frame many times the limit is skipped
// while it streams in; the reader keeps no more than the limit.
func TestOversizedFrameIsNotKept(t *testing.T) {
	const limit = 1 << 10
	var out bytes.Buffer
	big := strings.Repeat("z", 100*limit)
	c := &conn{src: bufio.NewReaderSize(strings.NewReader(big+"\n"+`{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n"), 64),
		w: &lockedWriter{w: nopWriteCloser{&out}}, max: limit, closed: make(chan struct{})}
	msg, err := c.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if req, ok := msg.(*jsonrpc.Request); !ok || req.Method != "ping" {
		t.Errorf("passed on %#v", msg)
	}
	if _, err := c.Read(context.Background()); err != io.EOF {
		t.Errorf("after the last line: %v, want EOF", err)
	}
	if !strings.Contains(out.String(), "-32600") {
		t.Errorf("no refusal written: %q", out.String())
	}
	if cap(c.line) > 2*limit {
		t.Errorf("the reader grew its line buffer to %d bytes for a %d-byte limit", cap(c.line), limit)
	}
}

// TestBatchesAfterAnOldInitialize: a client that speaks 2025-03-26 may
// send batches, and gets answers to them.
func TestBatchesAfterAnOldInitialize(t *testing.T) {
	w, sc := serve(t, 0)
	fmt.Fprintln(w, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	if m := answer(t, sc); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	fmt.Fprintln(w, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	fmt.Fprintln(w, `[{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":3,"method":"ping"}]`)
	var batch []map[string]any
	if !sc.Scan() || json.Unmarshal(sc.Bytes(), &batch) != nil || len(batch) != 2 {
		t.Fatalf("batch answer: %s", sc.Bytes())
	}
	ping(t, w, sc, 4)
	// A notification in a batch gets no answer; the batch's calls do.
	fmt.Fprintln(w, `[{"jsonrpc":"2.0","method":"notifications/roots/list_changed"},{"jsonrpc":"2.0","id":5,"method":"ping"}]`)
	if !sc.Scan() || json.Unmarshal(sc.Bytes(), &batch) != nil || len(batch) != 1 || batch[0]["id"] != float64(5) {
		t.Fatalf("answer to a batch with a notification: %s", sc.Bytes())
	}
	// An id used twice in a batch is refused (the SDK would end the
	// connection), and the server serves on.
	fmt.Fprintln(w, `[{"jsonrpc":"2.0","id":6,"method":"ping"},{"jsonrpc":"2.0","id":6,"method":"ping"}]`)
	if m := answer(t, sc); m["error"] == nil || !strings.Contains(fmt.Sprint(m["error"]), "used twice") {
		t.Fatalf("answer to a batch that repeats an id: %v", m)
	}
	ping(t, w, sc, 7)
}

// FuzzFrames feeds random frames: whatever they are, the server answers a
// ping after them.
func FuzzFrames(f *testing.F) {
	for _, s := range []string{"garbage", "[]", "{}", `{"jsonrpc":"2.1"}`, `{"jsonrpc":"2.0","id":[],"method":"x"}`,
		"\xff", `{"jsonrpc":"2.0","id":1,"result":{}}`, `{"jsonrpc":"2.0","id":"r","error":{"code":1,"message":"m"}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":null}`, "\"\\ud800\"", "{\"a\":\"\xff\"}", "\v{}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, frame []byte) {
		w, sc := serve(t, 1<<10)
		// Answers to the frame (if any) come before the ping's. The pipes
		// hold nothing: write while the answers are read.
		go fmt.Fprintf(w, "%s\n"+`{"jsonrpc":"2.0","id":"fuzz-ping","method":"ping"}`+"\n", frame)
		for {
			if m := answer(t, sc); m["id"] == "fuzz-ping" {
				return
			}
		}
	})
}

// TestValidErrorCodes: an error response the SDK makes from a plain error
// (code 0) leaves with a code JSON-RPC defines: -32600 for a call before
// initialize, -32603 for anything else; other responses pass unchanged.
func TestValidErrorCodes(t *testing.T) {
	id := func(v any) jsonrpc.ID {
		if n, ok := v.(int); ok {
			v = float64(n)
		}
		i, err := jsonrpc.MakeID(v)
		if err != nil {
			t.Fatal(err)
		}
		return i
	}
	for _, tc := range []struct {
		resp *jsonrpc.Response
		want string
	}{
		{&jsonrpc.Response{ID: id(1), Error: errors.New(`method "tools/call" is invalid during session initialization`)},
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"invalid request: method \"tools/call\" is invalid during session initialization: send initialize first"}}`},
		{&jsonrpc.Response{ID: id("a"), Error: errors.New("something broke")},
			`{"jsonrpc":"2.0","id":"a","error":{"code":-32603,"message":"something broke"}}`},
		{&jsonrpc.Response{ID: id("b"), Error: &jsonrpc.Error{Message: "bare", Data: json.RawMessage(`{"k":1}`)}},
			`{"jsonrpc":"2.0","id":"b","error":{"code":-32603,"message":"bare","data":{"k":1}}}`},
		{&jsonrpc.Response{ID: id(1), Error: &jsonrpc.Error{Code: -32601, Message: "no such method"}},
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no such method"}}`},
		{&jsonrpc.Response{ID: id(2), Error: fmt.Errorf("calling: %w", &jsonrpc.Error{Code: -32602, Message: "bad"})},
			`{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"calling: bad"}}`},
		{&jsonrpc.Response{ID: id(1), Result: json.RawMessage(`{"structuredContent":{"error":{"code":0,"x":1}}}`)},
			`{"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"error":{"code":0,"x":1}}}}`},
	} {
		var out bytes.Buffer
		c := &conn{w: &lockedWriter{w: nopWriteCloser{&out}}}
		if err := c.Write(context.Background(), tc.resp); err != nil {
			t.Fatalf("Write: %v", err)
		}
		if got := strings.TrimSuffix(out.String(), "\n"); got != tc.want {
			t.Errorf("%v\nwent out as\n%s\nwant\n%s", tc.resp.Error, got, tc.want)
		}
	}

	// And through a server: a call before initialize.
	in, out := serve(t, 0)
	fmt.Fprintln(in, `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`)
	if !out.Scan() {
		t.Fatal("no answer")
	}
	var m struct{ Error struct{ Code int } }
	if err := json.Unmarshal(out.Bytes(), &m); err != nil || m.Error.Code != -32600 {
		t.Errorf("tools/list before initialize: %s, want code -32600", out.Bytes())
	}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
