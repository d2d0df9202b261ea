//go:build unix

package session

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/yieldshell/yieldshell/internal/disklog"
	"github.com/yieldshell/yieldshell/pty"
)

// BenchmarkRun measures Start to the final status of a fast command, the
// server-side part of an exec of echo hello. (A baseline with os/exec cannot
// share this process: the Reaper collects every child. See pty's
// benchmarks and conformance's BenchmarkExec for the baselines.)
func BenchmarkRun(b *testing.B) {
	// As the server is: the end of a command then asks only the server's
	// children, not every process, about its tree.
	if err := pty.SetChildSubreaper(); err != nil {
		b.Fatal(err)
	}
	m := newTestManager(b, nil)
	for _, tty := range []bool{true, false} {
		name := "pipes"
		if tty {
			name = "pty"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				p, err := m.Start(b.Context(), spec("echo hello", tty))
				if err != nil {
					b.Fatal(err)
				}
				if r := p.WaitEnd(b.Context(), time.Now().Add(10*time.Second)); r != ReasonExited {
					b.Fatal(r)
				}
			}
		})
	}
}

// drainCommand writes drainBytes of 64-byte lines to its terminal.
const (
	drainBytes   = 200 << 20
	drainCommand = `yes 'a line of ordinary program output, sixty-three bytes long..' | head -c 209715200`
)

// BenchmarkDrain compares the rate at which a process's output reaches the
// log (redaction, cleaning, sequence numbers, the pending screen) with the
// raw rate of the terminal: the same command read to EOF straight from pty.
// The workloads are plain lines (drainCommand) and the progress transcripts
// of the screen package's tmux oracle (tqdm, rich, docker, apt's scroll
// region, cargo, npm), concatenated and played by cat; their log is much
// shorter than what the terminal carried, so every rate counts the
// terminal's bytes.
//
// Each iteration drains the workload once in every way, one after the
// other, so that the ratios it reports (way/raw) compare runs made under
// the same load of a shared machine. The ways:
//
//	raw:         pty alone
//	log:         the process's log, waited for as the wait tool does
//	log+pattern: the same while the wait looks for a pattern that never
//	             matches: every line is scanned as it arrives
//	log+disk:    the same with YIELDSHELL_LOG_DIR set: the disk copy
//	             follows the log
func BenchmarkDrain(b *testing.B) {
	m := newTestManager(b, nil)
	progressFile, progressBytes := progressTranscripts(b)
	buf := make([]byte, 32<<10)
	raw := func(b *testing.B, command string, _ int64) {
		p, err := m.engine.Start(b.Context(), pty.Options{Path: "/bin/sh", Args: []string{"sh", "-c", command}, Dir: "/", TTY: true})
		if err != nil {
			b.Fatal(err)
		}
		for {
			if _, err := p.Stdout().Read(buf); err != nil {
				break
			}
		}
		<-p.Done()
		p.Close()
	}
	viaLog := func(u Until) func(*testing.B, string, int64) {
		return func(b *testing.B, command string, n int64) {
			p, err := m.Start(b.Context(), spec(command, true))
			if err != nil {
				b.Fatal(err)
			}
			if r := p.Await(b.Context(), time.Now().Add(time.Minute), u).Reason; r != ReasonExited {
				b.Fatal(r)
			}
			if in := p.Info(); command == drainCommand && in.StdoutBytes < n {
				b.Fatalf("log has %d bytes", in.StdoutBytes)
			}
		}
	}
	ways := []struct {
		name string
		run  func(b *testing.B, command string, n int64)
	}{
		{"raw", raw},
		{"log", viaLog(Until{})},
		{"log+pattern", viaLog(Until{Pattern: regexp.MustCompile(`Local:\s+https?://\S+`)})},
		{"log+disk", func(b *testing.B, command string, n int64) {
			// The same Manager: a second one's reaper would steal its children.
			m.disk = disklog.New(b.TempDir(), 10<<20, m.log)
			defer func() {
				m.disk.Wait() // the copy is finished before the next way
				m.disk = nil
			}()
			viaLog(Until{})(b, command, n)
		}},
	}
	for _, w := range []struct {
		name    string
		command string
		bytes   int64
	}{
		{"lines", drainCommand, drainBytes},
		{"progress", "cat " + progressFile, progressBytes},
	} {
		b.Run(w.name, func(b *testing.B) {
			elapsed := make([]time.Duration, len(ways))
			for b.Loop() {
				for i, way := range ways {
					t0 := time.Now()
					way.run(b, w.command, w.bytes)
					elapsed[i] += time.Since(t0)
				}
			}
			for i, way := range ways {
				b.ReportMetric(float64(w.bytes)*float64(b.N)/elapsed[i].Seconds()/1e6, way.name+"-MB/s")
				if i > 0 {
					b.ReportMetric(elapsed[0].Seconds()/elapsed[i].Seconds(), way.name+"/raw")
				}
			}
			b.ReportMetric(0, "ns/op") // the iteration runs every way: its time says nothing
		})
	}
}

// BenchmarkPromptAnswer measures a REPL round trip: type a line into a
// program that answers at once and prompts again, and wait for the answer
// as write with yield_ms does. Each signal is timed next to its baseline,
// the same round trip ended the moment the prompt bytes reach the server
// (output-driven, no detection): the difference is what detection costs.
//
//	kernel: bash's read builtin, seen blocked reading the terminal
//	mark:   an integrated interactive bash, seen by its OSC 133 B mark
//	quiet:  a program that polls its input (python3 select.poll), seen by
//	        its prompt-shaped last line after the quiet period
//	quiet-epoll: the same from an event loop (node readline), whose epoll
//	        instance the kernel shows watching the terminal
func BenchmarkPromptAnswer(b *testing.B) {
	m := newTestManager(b, nil)
	cases := []struct {
		name, cmd, input, need string
	}{
		{"kernel", `while read -p "> " l; do echo "got $l"; done`, "x", "bash"},
		// Each prompt read by a child in a session of its own, which
		// opens the terminal by name (issue 32 cause 2).
		{"kernel-outside", `T=$(tty); while true; do printf "> "; setsid -w sh -c "read -r l < $T"; echo got; done`, "x", "setsid"},
		{"mark", `bash`, "true", "bash"},
		{"quiet", `python3 -u -c 'import select,sys
p = select.poll(); p.register(0, select.POLLIN)
while True:
    sys.stdout.write("> "); p.poll(); sys.stdin.readline(); print("got")'`, "x", "python3"},
		{"quiet-epoll", `node -e 'const rl = require("readline").createInterface({input: process.stdin, output: process.stdout, prompt: "> "})
rl.on("line", () => { console.log("got"); rl.prompt() }); rl.prompt()'`, "x", "node"},
	}
	for _, c := range cases {
		if _, err := exec.LookPath(c.need); err != nil {
			b.Logf("%s: %s is not installed", c.name, c.need)
			continue
		}
		s := spec(c.cmd, true)
		s.Shell = "bash"
		s.Env = map[string]string{"HOME": b.TempDir()} // no user start-up files
		p, err := m.Start(b.Context(), s)
		if err != nil {
			b.Fatal(err)
		}
		if r := p.Await(b.Context(), time.Now().Add(10*time.Second), Until{InputWait: true}).Reason; r != ReasonInputWait {
			b.Fatalf("%s: no first prompt: %s", c.name, r)
		}
		b.Run(c.name+"/baseline", func(b *testing.B) {
			for b.Loop() {
				p.mu.Lock()
				before := p.in.outputs
				prompt, _ := p.out.line()
				p.mu.Unlock()
				if err := p.Type(b.Context(), c.input, nil, true, false); err != nil {
					b.Fatal(err)
				}
				ok, _ := p.await(b.Context(), time.Now().Add(10*time.Second), func() bool {
					line, _ := p.out.line()
					return p.in.outputs > before && line == prompt
				})
				if !ok {
					b.Fatal("no prompt")
				}
			}
		})
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if err := p.Type(b.Context(), c.input, nil, true, false); err != nil {
					b.Fatal(err)
				}
				if r := p.Await(b.Context(), time.Now().Add(10*time.Second), Until{InputWait: true}).Reason; r != ReasonInputWait {
					b.Fatal(r)
				}
			}
		})
		p.Close()
	}
}

// progressTranscripts writes the oracle's progress transcripts, repeated
// to about 20 MiB, to a file, and returns its path and size.
func progressTranscripts(b *testing.B) (string, int64) {
	var buf bytes.Buffer
	for buf.Len() < 20<<20 {
		for _, name := range []string{"tqdm_bars", "rich_progress", "docker_layers", "apt_region", "cargo_bar", "npm_spinner"} {
			raw, err := os.ReadFile(filepath.Join(oracleDir, name+".raw"))
			if err != nil {
				b.Fatal(err)
			}
			buf.Write(raw)
		}
	}
	file := filepath.Join(b.TempDir(), "progress.raw")
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	return file, int64(buf.Len())
}
