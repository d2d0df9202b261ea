package netjail

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/yieldshell/yieldshell/internal/netproxy"
)

// BenchmarkJailStart times starting and waiting for `true`, plainly and
// in a jail (the helper, the namespaces, the hand-over, Serve and Close),
// interleaved in the same run, and reports the medians and their ratio.
// The helper is the test binary, or the binary YIELDSHELL_NETJAIL_HELPER
// names (a built yieldshell, whose start-up is most of the cost):
//
//	go test -run '^$' -bench BenchmarkJailStart -benchtime 200x ./internal/netjail/
func BenchmarkJailStart(b *testing.B) {
	truePath, err := exec.LookPath("true")
	if err != nil {
		b.Skip("true is not installed")
	}
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	if helper := os.Getenv("YIELDSHELL_NETJAIL_HELPER"); helper != "" {
		exe = helper
	}
	var plain, jailed []time.Duration
	for b.Loop() {
		start := time.Now()
		if err := exec.Command(truePath).Run(); err != nil {
			b.Fatal(err)
		}
		plain = append(plain, time.Since(start))
		start = time.Now()
		runJailed(b, exe, truePath)
		jailed = append(jailed, time.Since(start))
	}
	med := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2].Microseconds())
	}
	b.ReportMetric(med(plain), "plain-µs")
	b.ReportMetric(med(jailed), "jailed-µs")
	b.ReportMetric(med(jailed)/med(plain), "ratio")
}

func runJailed(b *testing.B, exe, path string) {
	j, err := New(netproxy.New(netproxy.Config{}))
	if err != nil {
		b.Fatal(err)
	}
	defer j.Close()
	cmd := j.command(exe, path, []string{"true"})
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	if err := j.Serve(context.Background()); err != nil {
		b.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		b.Fatal(err)
	}
}
