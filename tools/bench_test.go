package tools

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/policy"
	"github.com/yieldshell/yieldshell/internal/session"
	"github.com/yieldshell/yieldshell/internal/toolhost"
)

// BenchmarkExecInMemory measures an exec call through the SDK without the
// stdio transport or process start-up noise of the conformance benchmark;
// ps is the baseline of a call that starts nothing.
func BenchmarkExecInMemory(b *testing.B) {
	_, cs := benchServer(b)
	for _, tc := range []struct {
		name string
		tool string
		args map[string]any
	}{
		{"exec_echo", "exec", map[string]any{"command": "echo hello", "side_effects": []string{"NONE"}}},
		{"baseline_ps", "ps", map[string]any{"limit": 1}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				res, err := cs.CallTool(b.Context(), &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
				if err != nil || res.IsError {
					b.Fatal(err, res)
				}
			}
		})
	}
}

// BenchmarkPs50 measures a ps call that lists 50 running processes through
// the SDK (structured content, its schema check and the JSON text), next to
// one that lists one.
func BenchmarkPs50(b *testing.B) {
	m, cs := benchServer(b)
	for range 50 {
		if _, err := m.Start(b.Context(), session.Spec{Command: "sleep 600", SideEffects: []string{"NONE"}, TTY: true}); err != nil {
			b.Fatal(err)
		}
	}
	for _, limit := range []int{1, 50} {
		b.Run(map[int]string{1: "baseline_one", 50: "fifty"}[limit], func(b *testing.B) {
			for b.Loop() {
				res, err := cs.CallTool(b.Context(), &mcp.CallToolParams{Name: "ps", Arguments: map[string]any{"limit": limit}})
				if err != nil || res.IsError {
					b.Fatal(err, res)
				}
			}
		})
	}
}

// benchServer returns a Manager with the tools on an in-memory MCP session;
// both end with the benchmark.
func benchServer(b *testing.B) (*session.Manager, *mcp.ClientSession) {
	return benchServerEnv(b, nil)
}

// benchServerEnv is benchServer configured by env.
func benchServerEnv(b *testing.B, env map[string]string) (*session.Manager, *mcp.ClientSession) {
	cfg, err := policy.Load(func(k string) string { return env[k] }, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	m, err := newManager(cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { m.Shutdown(context.Background()) })
	srv := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "0"}, nil)
	register(srv, toolhost.Host{Manager: m, Config: cfg, Version: "test"})
	return m, connect(b, srv)
}
