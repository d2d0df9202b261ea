//go:build unix

package pty

import (
	"io"
	"os"
	"os/exec"
	"testing"

	cpty "github.com/creack/pty"
)

// The benchmarks compare the cost of one short command through our Reaper
// with os/exec and with creack/pty's own Start plus exec.Cmd.Wait.
//
// The baselines call exec.Cmd.Wait, so they must never run while a Reaper
// exists: each Reaper benchmark closes its Reaper before returning, and
// benchmarks run one at a time. Run them with -run x so no test's Reaper is
// alive either.

var benchArgs = []string{"sh", "-c", "echo hello"}

func benchReaper(b *testing.B, m mode) {
	r, err := NewReaper()
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	opts := Options{Path: "/bin/sh", Args: benchArgs, Env: os.Environ(), TTY: bool(m)}
	buf := make([]byte, 4096)
	for b.Loop() {
		p, err := r.Start(opts)
		if err != nil {
			b.Fatal(err)
		}
		for {
			if _, err := p.Stdout().Read(buf); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
		<-p.Done()
		if st := p.Status(); st.Code != 0 {
			b.Fatalf("status %+v", st)
		}
		_ = p.Close()
	}
}

// BenchmarkStartWait starts sh under a PTY, reads to EOF and waits for Done.
func BenchmarkStartWait(b *testing.B) { benchReaper(b, onTerminal) }

// BenchmarkStartWaitPipe is the same in pipe mode.
func BenchmarkStartWaitPipe(b *testing.B) { benchReaper(b, onPipes) }

// BenchmarkBaselineExec is os/exec with a stdout pipe; no Reaper may exist.
func BenchmarkBaselineExec(b *testing.B) {
	for b.Loop() {
		out, err := exec.Command("/bin/sh", benchArgs[1:]...).Output()
		if err != nil || string(out) != "hello\n" {
			b.Fatalf("%q %v", out, err)
		}
	}
}

// BenchmarkBaselineCreack is creack/pty.StartWithSize with exec.Cmd.Wait
// (blocking master); no Reaper may exist.
func BenchmarkBaselineCreack(b *testing.B) {
	buf := make([]byte, 4096)
	for b.Loop() {
		cmd := exec.Command("/bin/sh", benchArgs[1:]...)
		ptmx, err := cpty.StartWithSize(cmd, &cpty.Winsize{Cols: 120, Rows: 40})
		if err != nil {
			b.Fatal(err)
		}
		for {
			if _, err := ptmx.Read(buf); err != nil {
				break // EIO
			}
		}
		if err := cmd.Wait(); err != nil {
			b.Fatal(err)
		}
		_ = ptmx.Close()
	}
}
