//go:build unix

package conformance

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkExec measures a whole exec round-trip over stdio, as a client
// sees it, next to the baselines it cannot beat: the same command run
// directly with os/exec, and a tool call that starts nothing (ps).
func BenchmarkExec(b *testing.B) {
	for _, v := range protocols {
		b.Run(protoName(v), func(b *testing.B) {
			cs := benchSession(b, v)
			ctx := context.Background()
			b.Run("echo_hello", func(b *testing.B) {
				for b.Loop() {
					res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "exec", Arguments: map[string]any{
						"command": "echo hello", "side_effects": []string{"NONE"}}})
					if err != nil || res.IsError {
						b.Fatalf("exec: %v %v", err, res)
					}
				}
			})
			b.Run("echo_hello_pipes", func(b *testing.B) {
				for b.Loop() {
					res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "exec", Arguments: map[string]any{
						"command": "echo hello", "side_effects": []string{"NONE"}, "tty": false}})
					if err != nil || res.IsError {
						b.Fatalf("exec: %v %v", err, res)
					}
				}
			})
			b.Run("baseline_ps_call", func(b *testing.B) {
				for b.Loop() {
					if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ps", Arguments: map[string]any{"limit": 1}}); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
	b.Run("baseline_os_exec", func(b *testing.B) {
		for b.Loop() {
			if err := exec.Command("/bin/sh", "-c", "echo hello").Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkExecVsFork is issue 42's measure: exec of echo hello as a go-sdk
// client sees it over stdio, next to a bare fork+wait of the same line
// (/bin/sh -c 'echo hello') and to the same exec through the floor (a
// go-sdk server that only runs the line: floorServer), in the same
// iteration, taking turns at going first so that all three see the same
// load. It reports the medians and the ratios x-fork (exec over the bare
// fork; the goal: at most 1.5) and x-floor (exec over the floor: what
// yieldshell adds to what any go-sdk server costs).
func BenchmarkExecVsFork(b *testing.B) {
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	cs := benchSession(b, "2025-06-18")
	fs := benchSessionOf(b, exec.Command(self, "ys-helper", "sdk-floor"), "2025-06-18")
	ctx := context.Background()
	for _, tty := range []bool{true, false} {
		name := "pipes"
		if tty {
			name = "pty"
		}
		b.Run(name, func(b *testing.B) {
			var ex, fork, floor []time.Duration
			args := map[string]any{"command": "echo hello", "side_effects": []string{"NONE"}, "tty": tty}
			call := func(s *mcp.ClientSession, into *[]time.Duration) func() {
				return func() {
					t0 := time.Now()
					res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "exec", Arguments: args})
					*into = append(*into, time.Since(t0))
					if err != nil || res.IsError {
						b.Fatalf("exec: %v %v", err, res)
					}
				}
			}
			runs := []func(){
				call(cs, &ex),
				func() {
					t0 := time.Now()
					err := exec.Command("/bin/sh", "-c", "echo hello").Run()
					fork = append(fork, time.Since(t0))
					if err != nil {
						b.Fatal(err)
					}
				},
				call(fs, &floor),
			}
			i := 0
			for b.Loop() {
				for j := range runs {
					runs[(i+j)%len(runs)]()
				}
				i++
			}
			mid := func(ds []time.Duration) time.Duration { slices.Sort(ds); return ds[len(ds)/2] }
			me, mf, ml := mid(ex), mid(fork), mid(floor)
			b.ReportMetric(float64(me.Microseconds())/1000, "ms-exec")
			b.ReportMetric(float64(mf.Microseconds())/1000, "ms-fork")
			b.ReportMetric(float64(ml.Microseconds())/1000, "ms-floor")
			b.ReportMetric(float64(me)/float64(mf), "x-fork")
			b.ReportMetric(float64(me)/float64(ml), "x-floor")
		})
	}
}

// BenchmarkInitialize measures the time from starting the binary to the
// answer to initialize, with the raw protocol lines a client sends.
func BenchmarkInitialize(b *testing.B) {
	timeInitialize(b, nil)
}

// timeInitialize times starting the binary (with env added to its
// environment) up to its answer to initialize.
func timeInitialize(b *testing.B, env []string) {
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}` + "\n"
	for b.Loop() {
		cmd := exec.Command(binPath)
		cmd.Env = append(os.Environ(), env...)
		stdin, _ := cmd.StdinPipe()
		stdout, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		if _, err := io.WriteString(stdin, initialize); err != nil {
			b.Fatal(err)
		}
		if _, err := bufio.NewReader(stdout).ReadString('\n'); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		stdin.Close()
		_ = cmd.Wait()
		b.StartTimer()
	}
}

func benchSession(b *testing.B, version string, env ...string) *mcp.ClientSession {
	cmd := exec.Command(binPath)
	cmd.Env = append(os.Environ(), env...)
	return benchSessionOf(b, cmd, version)
}

// benchSessionOf connects a go-sdk client to the server cmd starts.
func benchSessionOf(b *testing.B, cmd *exec.Cmd, version string) *mcp.ClientSession {
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cs.Close() })
	return cs
}

// BenchmarkWaitFor measures, over stdio, the time from a dev server printing
// its URL to the client holding exec's answer (wait_for matched), next to a
// whole exec of echo as the baseline round-trip.
func BenchmarkWaitFor(b *testing.B) {
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(binPath)
	cmd.Env = append(os.Environ(), helperEnv+"="+self)
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cs.Close() })
	ctx := context.Background()
	b.Run("url_to_answer", func(b *testing.B) {
		var total time.Duration
		for b.Loop() {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "exec", Arguments: map[string]any{
				"command": helper("devserver", "50", devURL), "side_effects": []string{"NONE"}, "wait_for": `Local:\s+http`}})
			got := time.Now()
			if err != nil || res.IsError {
				b.Fatalf("exec: %v %v", err, res)
			}
			out := res.StructuredContent.(map[string]any)
			_, after, _ := strings.Cut(out["matched_line"].(string), "printed at ")
			ns, _ := strconv.ParseInt(strings.TrimRight(after, ")"), 10, 64)
			total += got.Sub(time.Unix(0, ns))
			b.StopTimer()
			_, _ = cs.CallTool(ctx, &mcp.CallToolParams{Name: "stop", Arguments: map[string]any{"process_id": out["process_id"], "signal": "SIGKILL"}})
			b.StartTimer()
		}
		b.ReportMetric(float64(total.Microseconds())/float64(b.N)/1000, "ms-url-to-answer")
	})
	b.Run("baseline_exec_echo", func(b *testing.B) {
		for b.Loop() {
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "exec", Arguments: map[string]any{
				"command": "echo hello", "side_effects": []string{"NONE"}}}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkPersist compares, on the same binary, tool calls to an embedded
// server with calls through a persistent bridge (stdio to the bridge, the
// Unix socket to the server), and the start-up of each to the answer to
// initialize (the bridge's with the server already running).
func BenchmarkPersist(b *testing.B) {
	env := persistRuntime(b)
	bridge := func(b *testing.B) *mcp.ClientSession {
		cmd := exec.Command(binPath)
		cmd.Env = append(os.Environ(), env...)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil).
			Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = cs.Close() })
		return cs
	}
	calls := func(b *testing.B, cs *mcp.ClientSession) {
		ctx := context.Background()
		b.Run("exec_echo", func(b *testing.B) {
			for b.Loop() {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "exec", Arguments: map[string]any{
					"command": "echo hello", "side_effects": []string{"NONE"}}})
				if err != nil || res.IsError {
					b.Fatalf("exec: %v %v", err, res)
				}
			}
		})
		b.Run("ps_call", func(b *testing.B) {
			for b.Loop() {
				if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ps", Arguments: map[string]any{"limit": 1}}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("embedded", func(b *testing.B) { calls(b, benchSession(b, "2025-06-18")) })
	b.Run("bridge", func(b *testing.B) { calls(b, bridge(b)) })
	b.Run("initialize_embedded", func(b *testing.B) { timeInitialize(b, nil) })
	b.Run("initialize_bridge", func(b *testing.B) { timeInitialize(b, env) })
}

// BenchmarkStartShell measures start_shell over stdio for a shell that
// prints a line and stays up, one that prints nothing, and node printing a
// line once it has loaded, next to exec answering after a fixed 75 ms
// yield: the peer's settle rule (75 ms without output, in its fast mode) on
// this engine.
func BenchmarkStartShell(b *testing.B) {
	cmd := exec.Command(binPath)
	cmd.Env = append(os.Environ(), "YIELDSHELL_TOOLSET=all")
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cs.Close() })
	ctx := context.Background()
	wd := b.TempDir()
	start := func(b *testing.B, command string) {
		for b.Loop() {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "start_shell", Arguments: map[string]any{
				"command": command, "workingDirectory": wd, "label": "bench"}})
			if err != nil || res.IsError {
				b.Fatalf("start_shell: %v %v", err, res)
			}
			b.StopTimer()
			_, _ = cs.CallTool(ctx, &mcp.CallToolParams{Name: "stop_shell", Arguments: map[string]any{"label": "bench", "force": true}})
			b.StartTimer()
		}
	}
	b.Run("prints_then_quiet", func(b *testing.B) { start(b, "echo hello; exec sleep 30") })
	b.Run("silent", func(b *testing.B) { start(b, "exec sleep 30") })
	b.Run("node_prints", func(b *testing.B) {
		if _, err := exec.LookPath("node"); err != nil {
			b.Skip("node not installed")
		}
		start(b, `exec node -e 'console.log("hello"); setTimeout(() => {}, 30000)'`)
	})
	b.Run("baseline_exec_yield_75ms", func(b *testing.B) {
		for b.Loop() {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "exec", Arguments: map[string]any{
				"command": "echo hello; exec sleep 30", "side_effects": []string{"NONE"}, "yield_ms": 75}})
			if err != nil || res.IsError {
				b.Fatalf("exec: %v %v", err, res)
			}
			b.StopTimer()
			_, _ = cs.CallTool(ctx, &mcp.CallToolParams{Name: "stop", Arguments: map[string]any{"process_id": res.StructuredContent.(map[string]any)["process_id"], "signal": "SIGKILL"}})
			b.StartTimer()
		}
	})
}

// BenchmarkResourceUpdated measures, over stdio, the time from a process
// printing a line to the client holding notifications/resources/updated
// for its log (a subscription), next to the time from printing to the
// answer of a wait with until that was already waiting (the long poll it
// replaces). The ticker prints every 400 ms, more than the 250 ms between
// two notifications, so no notification is held back by the throttle.
// Reports the median over the iterations.
func BenchmarkResourceUpdated(b *testing.B) {
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	arrived := make(chan time.Time, 16)
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(context.Context, *mcp.ResourceUpdatedNotificationRequest) { arrived <- time.Now() }})
	cmd := exec.Command(binPath)
	cmd.Env = append(os.Environ(), helperEnv+"="+self)
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cs.Close() })
	ctx := context.Background()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "exec", Arguments: map[string]any{
		"command": helper("ticker", "400"), "side_effects": []string{"NONE"}, "name": "ticker", "yield_ms": 100}})
	if err != nil || res.IsError {
		b.Fatalf("exec: %v %v", err, res)
	}
	// printed is when the newest tick after since was printed.
	printed := func(text string) time.Time {
		i := strings.LastIndex(text, "tick ")
		if i < 0 {
			b.Fatalf("no tick in %q", text)
		}
		f := strings.Fields(text[i:])
		ns, _ := strconv.ParseInt(f[1], 10, 64)
		return time.Unix(0, ns)
	}
	median := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2].Microseconds()) / 1000
	}
	b.Run("output_to_updated", func(b *testing.B) {
		uri := "yieldshell://process/ticker/log"
		if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
			b.Fatal(err)
		}
		<-arrived // the first may be of output printed before the subscription
		var lat []time.Duration
		for b.Loop() {
			at := <-arrived
			r, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
			if err != nil {
				b.Fatal(err)
			}
			lat = append(lat, at.Sub(printed(r.Contents[0].Text)))
		}
		_ = cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri})
		b.ReportMetric(median(lat), "ms-median-output-to-updated")
	})
	b.Run("baseline_output_to_wait", func(b *testing.B) {
		var lat []time.Duration
		for b.Loop() {
			r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "wait", Arguments: map[string]any{
				"process_id": "ticker", "until": "tick", "timeout_ms": 5000}})
			at := time.Now()
			if err != nil || r.IsError {
				b.Fatalf("wait: %v %v", err, r)
			}
			lat = append(lat, at.Sub(printed(r.StructuredContent.(map[string]any)["matched_line"].(string))))
		}
		b.ReportMetric(median(lat), "ms-median-output-to-wait")
	})
}
