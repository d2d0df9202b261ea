package conformance

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// BenchmarkStartup measures spawn → the answer to initialize of yieldshell
// and of a minimal go-sdk stdio server (testdata/minimal, built here),
// side by side: each iteration starts both, in alternating order, with
// 1000 unrelated processes on the machine (sleeps this benchmark starts
// and ends). It reports the median of each and their ratio
// (x-minimal); the goal is at most 2. Start-up must not grow with the
// machine: nothing that reads every process (the orphan sweep) may run
// before the answer.
func BenchmarkStartup(b *testing.B) {
	minBin := filepath.Join(b.TempDir(), "minimal")
	build := exec.Command("go", "build", "-o", minBin, "./testdata/minimal")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		b.Fatalf("building the minimal server: %v", err)
	}
	crowd(b, 1000)
	var ys, minimal []time.Duration
	servers := []struct {
		bin   string
		times *[]time.Duration
	}{{binPath, &ys}, {minBin, &minimal}}
	i := 0
	for b.Loop() {
		for j := range servers {
			s := servers[(i+j)%2]
			*s.times = append(*s.times, spawnToInitialize(b, s.bin))
		}
		i++
	}
	mys, mmin := median(ys), median(minimal)
	b.ReportMetric(float64(mys.Microseconds())/1000, "ms-yieldshell")
	b.ReportMetric(float64(mmin.Microseconds())/1000, "ms-minimal")
	b.ReportMetric(float64(mys)/float64(mmin), "x-minimal")
}

// spawnToInitialize starts bin, sends initialize and returns the time
// until the answer; the server is then ended (stdin closed) and waited for.
func spawnToInitialize(b *testing.B, bin string) time.Duration {
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}` + "\n"
	cmd := exec.Command(bin)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	if _, err := io.WriteString(stdin, initialize); err != nil {
		b.Fatal(err)
	}
	if _, err := bufio.NewReader(stdout).ReadString('\n'); err != nil {
		b.Fatal(err)
	}
	d := time.Since(t0)
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		b.Fatalf("%s: %v", bin, err)
	}
	return d
}

// crowd puts n unrelated processes (sleeps, children of one shell in a
// process group of its own) on the machine until the benchmark ends.
func crowd(b *testing.B, n int) {
	sh := exec.Command("/bin/sh", "-c", `i=0; while [ $i -lt `+strconv.Itoa(n)+` ]; do sleep 3600 & i=$((i+1)); done; echo started; wait`)
	sh.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := sh.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := sh.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = syscall.Kill(-sh.Process.Pid, syscall.SIGKILL)
		_ = sh.Wait()
	})
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "started\n" {
		b.Fatalf("starting %d sleeps: %q %v", n, line, err)
	}
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
