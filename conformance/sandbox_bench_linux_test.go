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

// BenchmarkExecHostList is the cost of a host list: exec of echo hello
// over stdio, unconfined, sandboxed (workspace-write, network off: the
// confined fork) and sandboxed with a host list (the jail's helper, a Go
// start of this binary, makes the namespaces and confines itself), taking
// turns in each iteration. It reports the medians and the host list's
// ratio to the plain sandboxed start:
//
//	go test -run '^$' -bench BenchmarkExecHostList -benchtime 200x ./conformance/
func BenchmarkExecHostList(b *testing.B) {
	root := b.TempDir()
	sandboxed := []string{"YIELDSHELL_SANDBOX=workspace-write", "YIELDSHELL_ALLOWED_CWDS=" + root}
	ways := []struct {
		name string
		cs   *mcp.ClientSession
		took []time.Duration
	}{
		{name: "off", cs: benchSession(b, "2025-06-18")},
		{name: "sandboxed", cs: benchSession(b, "2025-06-18", sandboxed...)},
		{name: "hostlist", cs: benchSession(b, "2025-06-18", append(sandboxed, "YIELDSHELL_SANDBOX_NETWORK=127.0.0.2:9")...)},
	}
	args := map[string]any{"command": "echo hello", "side_effects": []string{"NONE"}, "cwd": root}
	ctx := context.Background()
	i := 0
	for b.Loop() {
		for k := range ways {
			w := &ways[(i+k)%len(ways)]
			t0 := time.Now()
			res, err := w.cs.CallTool(ctx, &mcp.CallToolParams{Name: "exec", Arguments: args})
			w.took = append(w.took, time.Since(t0))
			if err != nil || res.IsError {
				b.Fatalf("exec (%s): %v %v", w.name, err, res)
			}
		}
		i++
	}
	med := map[string]time.Duration{}
	for _, w := range ways {
		slices.Sort(w.took)
		med[w.name] = w.took[len(w.took)/2]
		b.ReportMetric(float64(med[w.name].Microseconds())/1000, "ms-"+w.name)
	}
	b.ReportMetric(float64(med["hostlist"])/float64(med["sandboxed"]), "x-sandboxed")
}
