//go:build unix

package httpserve

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/poll"
)

// Issue 30 item 4: clients without the token must not lock out a client
// with it. These figures are what the issue names: 3000 unauthenticated
// connections held open (and reopened as fast as the server closes them),
// and 256 kept-alive /healthz connections.
const (
	heldConns    = 3000
	healthzConns = 256
	lockoutToken = "right-token-0123456789"
	lockoutBound = 10 * time.Second
)

// lockoutServer serves a bare MCP server with the default configuration
// (caps and timeouts as --http has them) on a loopback port.
func lockoutServer(t testing.TB) string {
	t.Helper()
	hc, err := LoadConfig("0", "", func(k string) string { return map[string]string{TokenEnv: lockoutToken}[k] })
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{MCP: mcp.NewServer(&mcp.Implementation{Name: "t", Version: "0"}, nil),
		Metrics: okHandler(), Health: okHandler(), Log: slog.New(slog.DiscardHandler), Config: hc}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	t.Cleanup(func() { cancel(); <-done })
	return ln.Addr().String()
}

// firstAnswer is how long a new client with the token, on connections of
// its own, waits for its first answer (to initialize).
func firstAnswer(ctx context.Context, addr string) (time.Duration, error) {
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	start := time.Now()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: "http://" + addr + Path,
			HTTPClient: &http.Client{Transport: bearerOver{lockoutToken, tr}}},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	took := time.Since(start)
	if err != nil {
		return took, err
	}
	cs.Close()
	return took, nil
}

// bearerOver adds the token to every request sent through rt.
type bearerOver struct {
	token string
	rt    http.RoundTripper
}

func (b bearerOver) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.rt.RoundTrip(r)
}

// attack is a crowd of clients without the token.
type attack struct {
	name string
	n    int // connections
	// healthz: each connection asks GET /healthz once, keeping it alive;
	// otherwise it sends nothing.
	healthz bool
	// reopen: a connection the server closes is opened again at once.
	reopen bool
	// churn: each connection is closed as soon as it is open, and opened
	// again.
	churn bool
}

var attacks = []attack{
	{name: "held3000", n: heldConns},
	{name: "reopened3000", n: heldConns, reopen: true},
	{name: "churn3000", n: heldConns, churn: true},
	{name: "healthz256", n: healthzConns, healthz: true, reopen: true},
}

// attackEnv names the attack a helper process runs, and where.
const attackEnv = "YS_LOCKOUT_ATTACK"

// run starts a in a process of its own (so that the attack's CPU is
// shared with the server by the kernel, as another program's would be,
// not by this process's scheduler) against addr; it returns once every
// connection was opened at least once, and stop ends the attack.
func (a attack) run(ctx context.Context, t testing.TB, addr string) (stop func()) {
	t.Helper()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestLockoutAttackHelper$")
	cmd.Env = append(os.Environ(), attackEnv+"="+a.name+" "+addr)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := bufio.NewScanner(stdout)
	ready := make(chan string, 1)
	go func() {
		defer close(ready)
		for lines.Scan() {
			ready <- lines.Text()
		}
	}()
	select {
	case line := <-ready:
		t.Logf("%s: %s", a.name, line)
	case <-time.After(30 * time.Second):
		t.Fatalf("%s: the attack did not start within 30 s", a.name)
	}
	return func() {
		stdin.Close()
		for line := range ready {
			t.Logf("%s: %s", a.name, line)
		}
		_ = cmd.Wait()
	}
}

// TestLockoutAttackHelper is the attacking process (attack.run); run
// alone it does nothing.
func TestLockoutAttackHelper(t *testing.T) {
	spec := os.Getenv(attackEnv)
	if spec == "" {
		t.Skip("the attack's helper process")
	}
	name, addr, _ := strings.Cut(spec, " ")
	i := slices.IndexFunc(attacks, func(a attack) bool { return a.name == name })
	if i < 0 {
		t.Fatalf("no attack %q", name)
	}
	raiseFileLimit(t, 2*heldConns+1024)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { _, _ = io.Copy(io.Discard, os.Stdin); cancel() }() // the test closes stdin to stop it
	attacks[i].attack(ctx, addr)
}

// attack opens a.n connections to addr and holds them until ctx is done,
// saying on stdout when every one was opened once, and at the end how
// many were opened again.
func (a attack) attack(ctx context.Context, addr string) {
	var wg sync.WaitGroup
	var opened, reopened atomic.Int64
	for range a.n {
		wg.Go(func() {
			for first := true; ctx.Err() == nil; first = false {
				c, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
				if err != nil {
					return // ctx done, or the machine is out of ports: the attack is what it is
				}
				if first {
					opened.Add(1)
				} else {
					reopened.Add(1)
				}
				if a.churn {
					c.Close()
					continue
				}
				stopClose := context.AfterFunc(ctx, func() { c.Close() })
				if a.healthz {
					fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
					if res, err := http.ReadResponse(bufio.NewReader(c), nil); err == nil {
						res.Body.Close()
					}
				}
				_, _ = io.Copy(io.Discard, c) // hold it until the server closes it
				stopClose()
				c.Close()
				if !a.reopen {
					return
				}
			}
		})
	}
	poll.Within(20*time.Second, func() bool { return opened.Load() >= int64(a.n) })
	fmt.Printf("%d of %d connections opened\n", opened.Load(), a.n)
	wg.Wait()
	fmt.Printf("%d connections opened again after the server closed them\n", reopened.Load())
}

// raiseFileLimit lets this process hold every attacking connection and
// the server's side of them.
func raiseFileLimit(t testing.TB, need uint64) {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		t.Skipf("reading RLIMIT_NOFILE: %v", err)
	}
	if rl.Cur >= need {
		return
	}
	old := rl
	rl.Cur = min(max(need, rl.Cur), rl.Max)
	if rl.Cur < need {
		t.Skipf("RLIMIT_NOFILE hard limit %d is below the %d descriptors the attack needs", rl.Max, need)
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		t.Skipf("raising RLIMIT_NOFILE: %v", err)
	}
	t.Cleanup(func() { _ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old) })
}

// firstAnswers measures k new clients one after another.
func firstAnswers(ctx context.Context, addr string, k int) ([]time.Duration, error) {
	var ds []time.Duration
	for range k {
		d, err := firstAnswer(ctx, addr)
		if err != nil {
			return ds, fmt.Errorf("after %v: %w", d, err)
		}
		ds = append(ds, d)
	}
	slices.Sort(ds)
	return ds, nil
}

// TestNoLockout: a new client with the token gets its first answer within
// lockoutBound while each attack runs. Locked out, it waited more than
// 30 s here (109-208 s in the issue); the bound is generous for a loaded
// machine and a race-enabled build (the worst seen: 5.4 s with -race at
// load 11 on 2 cores). The figures, logged next to the unattacked
// baseline of the same run, are the measure; BenchmarkFirstAnswer holds
// the speed target.
func TestNoLockout(t *testing.T) {
	if testing.Short() {
		t.Skip("opens thousands of connections")
	}
	raiseFileLimit(t, 2*heldConns+1024)
	addr := lockoutServer(t)
	base, err := firstAnswers(t.Context(), addr, 5)
	if err != nil {
		t.Fatalf("baseline: %v", err)
	}
	t.Logf("baseline: first answer in %v (median of %d), max %v", base[len(base)/2], len(base), base[len(base)-1])
	for _, a := range attacks {
		if a.churn {
			continue // a load on the CPU more than on the server's limits: BenchmarkFirstAnswer measures it
		}
		t.Run(a.name, func(t *testing.T) {
			stop := a.run(t.Context(), t, addr)
			ds, err := firstAnswers(t.Context(), addr, 5)
			stop()
			if err != nil {
				t.Fatalf("a client with the token under attack: %v", err)
			}
			t.Logf("%s: first answer in %v (median of %d), max %v; baseline %v", a.name, ds[len(ds)/2], len(ds), ds[len(ds)-1], base[len(base)/2])
			if worst := ds[len(ds)-1]; worst > lockoutBound {
				t.Errorf("%s: a client with the token waited %v for its first answer", a.name, worst)
			}
		})
	}
}

// BenchmarkFirstAnswer: the time a new client with the token waits for
// its first answer, unattacked and under each attack, in one run. The
// target (issue 30 item 4) is under 1 s under attack:
//
//	go test ./internal/httpserve -run '^$' -bench FirstAnswer -benchtime 10x
func BenchmarkFirstAnswer(b *testing.B) {
	raiseFileLimit(b, 2*heldConns+1024)
	addr := lockoutServer(b)
	measure := func(b *testing.B) {
		var worst time.Duration
		for b.Loop() {
			d, err := firstAnswer(b.Context(), addr)
			if err != nil {
				b.Fatal(err)
			}
			worst = max(worst, d)
		}
		b.ReportMetric(float64(worst.Milliseconds()), "max-ms")
	}
	b.Run("baseline", measure)
	for _, a := range attacks {
		b.Run(a.name, func(b *testing.B) {
			stop := a.run(b.Context(), b, addr)
			defer stop()
			b.ResetTimer()
			measure(b)
			b.StopTimer()
		})
	}
}
