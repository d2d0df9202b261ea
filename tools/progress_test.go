package tools

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/answer"
	"github.com/yieldshell/yieldshell/internal/policy"
)

// TestProgress checks that exec and wait report progress while they block,
// only when the request carries a token, with growing progress values and
// the newest output line, at today's protocol and the SDK's default.
func TestProgress(t *testing.T) {
	for _, v := range []string{"2025-06-18", ""} {
		name := v
		if name == "" {
			name = "default"
		}
		t.Run(name, func(t *testing.T) { testProgress(t, v) })
	}
}

func testProgress(t *testing.T, version string) {
	cfg, err := policy.Load(func(string) string { return "" }, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	m, err := newManager(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Shutdown(context.Background()) })
	h := &handlers{Reader: answer.New(m, cfg), m: m, cfg: cfg, progressEvery: 20 * time.Millisecond}
	srv := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "0"}, nil)
	mcp.AddTool(srv, execTool(cfg), h.exec)
	mcp.AddTool(srv, waitTool(), h.wait)

	var mu sync.Mutex
	got := map[any][]*mcp.ProgressNotificationParams{}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			got[r.Params.ProgressToken] = append(got[r.Params.ProgressToken], r.Params)
		},
	}).Connect(t.Context(), ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })

	call := func(tool, token string, args map[string]any) map[string]any {
		t.Helper()
		p := &mcp.CallToolParams{Name: tool, Arguments: args}
		if token != "" {
			p.Meta = mcp.Meta{"progressToken": token}
		}
		res, err := cs.CallTool(t.Context(), p)
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", tool, err, res)
		}
		return res.StructuredContent.(map[string]any)
	}
	out := call("exec", "exec-1", map[string]any{"command": "echo first line; exec sleep 30",
		"side_effects": []string{"NONE"}, "yield_ms": 300})
	if out["status"] != "backgrounded" {
		t.Fatalf("exec: %v", out)
	}
	id := out["process_id"].(string)
	call("wait", "wait-1", map[string]any{"process_id": id, "timeout_ms": 200})
	call("wait", "", map[string]any{"process_id": id, "timeout_ms": 100})

	mu.Lock()
	defer mu.Unlock()
	if len(got) != 2 {
		t.Errorf("progress tokens seen = %d, want 2 (exec-1, wait-1; none for a call without a token)", len(got))
	}
	for _, tok := range []string{"exec-1", "wait-1"} {
		ps := got[tok]
		if len(ps) < 2 {
			t.Errorf("%s: %d notifications, want at least 2", tok, len(ps))
			continue
		}
		for i, p := range ps {
			if i > 0 && p.Progress <= ps[i-1].Progress {
				t.Errorf("%s: progress did not grow: %v then %v", tok, ps[i-1].Progress, p.Progress)
			}
		}
		if last := ps[len(ps)-1].Message; !strings.Contains(last, id) || !strings.HasSuffix(last, ": first line") {
			t.Errorf("%s: message %q should name the process and its newest line", tok, last)
		}
	}
}
