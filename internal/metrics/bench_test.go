package metrics

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkMiddleware is the cost the metrics add to one tool call whose
// answer carries 20000 bytes of output (the default cap), against the
// same call without them.
func BenchmarkMiddleware(b *testing.B) {
	out, _ := json.Marshal(map[string]any{"status": "completed", "stdout": strings.Repeat("output line\n", 20000/12), "exit_code": 0})
	res := &mcp.CallToolResult{StructuredContent: json.RawMessage(out)}
	handler := func(context.Context, string, mcp.Request) (mcp.Result, error) { return res, nil }
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "exec"}}
	for _, bc := range []struct {
		name string
		h    mcp.MethodHandler
	}{
		{"bare", handler},
		{"metrics", New(nil).Middleware()(handler)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := bc.h(b.Context(), "tools/call", req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
