//go:build unix

package session

import (
	"bytes"
	"fmt"
	"syscall"
	"testing"
	"time"
)

// BenchmarkLogPath measures a reader's path from a read to the log in
// memory, with no process behind it: the redactor, the mark scanner, the
// binary judgement, the escape filter (pipe mode's Stripper, PTY mode's
// cleaner) and the log, in 4 KiB reads as turnBytes passes them. The
// workloads are plain lines (as BenchmarkDrain's), coloured lines, and
// binary output (every byte value, repeated). MB/s counts the bytes read;
// MB/cpu-s counts them per second of the process's CPU time (user and
// system), which a machine shared with other work disturbs much less than
// the elapsed time.
func BenchmarkLogPath(b *testing.B) {
	var bin []byte
	for range 4096 {
		for c := range 256 {
			bin = append(bin, byte(c))
		}
	}
	workloads := []struct {
		name string
		data []byte
	}{
		{"lines", bytes.Repeat([]byte("a line of ordinary program output, sixty-three bytes long..\n"), 1<<20/64)},
		{"colour", bytes.Repeat([]byte("\x1b[32mok\x1b[0m   a coloured line of test output \x1b[1mbold\x1b[0m\n"), 1<<20/64)},
		{"binary", bin},
	}
	for _, tty := range []bool{false, true} {
		for _, w := range workloads {
			mode := "pipes"
			if tty {
				mode = "pty"
			}
			data := w.data
			if tty {
				data = bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n"))
			}
			b.Run(fmt.Sprintf("%s/%s", mode, w.name), func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				cpu0 := cpuTime()
				for b.Loop() {
					p := newFuzzProcess(8<<20, 80, 24)
					if !tty {
						p.TTY = false
						p.out = pipeline{secrets: newSecretList(nil)}
					}
					sr := newStreamReader(Stdout, tty, newSecretList(fuzzSecrets))
					for rest := data; len(rest) > 0; {
						n := min(len(rest), turnBytes)
						sr.take(rest[:n])
						rest = rest[n:]
						p.mu.Lock()
						p.appendLocked(sr, false)
						p.mu.Unlock()
					}
				}
				cpu := cpuTime() - cpu0
				b.ReportMetric(float64(len(data))*float64(b.N)/cpu.Seconds()/1e6, "MB/cpu-s")
			})
		}
	}
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime() time.Duration {
	var r syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &r); err != nil {
		return 0
	}
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}
