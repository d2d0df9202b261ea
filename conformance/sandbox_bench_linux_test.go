package conformance

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkSandboxExec is the cost of a host list: exec of echo hello
// over stdio, unconfined, sandboxed (workspace-write, network off: the
// confined fork) and sandboxed with a host list (the jail's helper, a Go
// start of this binary, makes the namespaces and confines itself), taking
// turns in each iteration. It reports the medians and the host list's
// ratio to the plain sandboxed start:
//
//	go test -run '^$' -bench BenchmarkSandboxExec -benchtime 200x ./conformance/
func BenchmarkSandboxExec(b *testing.B) {
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
	b.ReportMetric(float64(med["sandboxed"])/float64(med["off"]), "sandboxed-x-off")
}
