package session

import (
	"testing"
	"time"
)

// BenchmarkRun measures Start to the final status of a fast command, the
// server-side part of an exec of echo hello. (A baseline with os/exec cannot
// share this process: the Reaper collects every child. See pty's
// benchmarks and conformance's BenchmarkExec for the baselines.)
func BenchmarkRun(b *testing.B) {
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
