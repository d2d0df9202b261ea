//go:build unix

package app

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/policy"
	"github.com/yieldshell/yieldshell/internal/poll"
)

// TestEndCallsAnswersBlockedCalls: EndCalls answers an exec that blocks
// under a long yield_ms at once, as a cancelled one, and leaves its
// process for Shutdown; a call made after it starts nothing.
func TestEndCallsAnswersBlockedCalls(t *testing.T) {
	cfg, err := policy.Load(func(string) string { return "" }, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(cfg, Loggers{Stderr: slog.DiscardHandler, SDK: slog.New(slog.DiscardHandler)}, OneCall, "test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Shutdown)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := a.Server.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).
		Connect(t.Context(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	exec := func() (*mcp.CallToolResult, map[string]any, error) {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "exec", Arguments: map[string]any{
			"command": "echo started; exec sleep 60", "side_effects": []string{"NONE"}, "yield_ms": 20000, "tty": false}})
		if err != nil {
			return nil, nil, err
		}
		out, _ := res.StructuredContent.(map[string]any)
		return res, out, nil
	}
	type answer struct {
		out map[string]any
		err error
	}
	answered := make(chan answer, 1)
	go func() {
		_, out, err := exec()
		answered <- answer{out, err}
	}()
	poll.Until(t, 10*time.Second, "the exec to start", func() bool { return len(a.Manager.List()) > 0 })
	ended := time.Now()
	a.EndCalls()
	var got answer
	select {
	case got = <-answered:
	case <-time.After(5 * time.Second):
		t.Fatal("EndCalls did not answer the blocked exec within 5 s")
	}
	t.Logf("answered %v after EndCalls", time.Since(ended).Round(time.Millisecond))
	if got.err != nil || got.out["yield_reason"] != "cancelled" || got.out["status"] != "backgrounded" {
		t.Errorf("the blocked exec: %v %v; want backgrounded, yield_reason cancelled", got.out, got.err)
	}
	// A later call is cancelled before it starts anything.
	if res, _, err := exec(); err != nil || !res.IsError || len(a.Manager.List()) != 1 {
		t.Errorf("an exec after EndCalls: %+v, %v; %d processes; want it refused", res, err, len(a.Manager.List()))
	}
}

// TestSDKLogClosedAtShutdown: the SDK warns from timers of its own (a
// list-changed notification for a session that is gone), which nobody can
// join; after Shutdown nothing of it reaches the writer, which the caller
// of `yieldshell call` owns again (a data race in TestCLI otherwise).
func TestSDKLogClosedAtShutdown(t *testing.T) {
	cfg, err := policy.Load(func(string) string { return "" }, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var w syncBuffer
	l := NewLoggers(&w, func(string) string { return "" }, OneCall)
	a, err := New(cfg, l, OneCall, "test")
	if err != nil {
		t.Fatal(err)
	}
	l.SDK.Warn("before shutdown")
	a.Shutdown()
	l.SDK.Warn("after shutdown")
	if got := w.String(); !strings.Contains(got, "before shutdown") || strings.Contains(got, "after shutdown") {
		t.Errorf("stderr: %q, want the warning from before shutdown only", got)
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent use.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
