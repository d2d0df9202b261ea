package conformance

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkExecSandboxed is issue 40's cost: exec of echo hello confined
// (workspace-write, network off) and unconfined, as a go-sdk client sees
// them over stdio from one server, in the same iteration and taking turns
// at going first, so that both see the same load. It reports the medians
// and their ratio, x-off (the goal: at most 1.3).
func BenchmarkExecSandboxed(b *testing.B) {
	cs := benchSession(b, "2025-06-18")
	ctx := context.Background()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "exec", Arguments: map[string]any{
		"command": "true", "side_effects": []string{"NONE"}, "sandbox": "workspace-write"}})
	if err != nil || res.IsError {
		b.Skipf("no sandbox here: %v %v", err, res)
	}
	for _, tty := range []bool{false, true} {
		b.Run(map[bool]string{false: "pipes", true: "pty"}[tty], func(b *testing.B) {
			var took [2][]time.Duration // unconfined, confined
			call := func(confined int) {
				args := map[string]any{"command": "echo hello", "side_effects": []string{"NONE"}, "tty": tty}
				if confined == 1 {
					args["sandbox"] = "workspace-write"
				}
				t0 := time.Now()
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "exec", Arguments: args})
				took[confined] = append(took[confined], time.Since(t0))
				if err != nil || res.IsError {
					b.Fatalf("exec: %v %v", err, res)
				}
			}
			i := 0
			for b.Loop() {
				call(i % 2)
				call((i + 1) % 2)
				i++
			}
			mid := func(ds []time.Duration) time.Duration { slices.Sort(ds); return ds[len(ds)/2] }
			off, on := mid(took[0]), mid(took[1])
			b.ReportMetric(float64(off.Microseconds())/1000, "ms-off")
			b.ReportMetric(float64(on.Microseconds())/1000, "ms-sandboxed")
			b.ReportMetric(float64(on)/float64(off), "x-off")
		})
	}
}
