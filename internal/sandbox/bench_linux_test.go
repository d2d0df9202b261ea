package sandbox

import (
	"os/exec"
	"testing"
)

// BenchmarkStart measures confining a fork: /bin/true started and
// awaited bare and through Start (thread, Landlock ruleset, seccomp
// filter and its listener), in one run.
func BenchmarkStart(b *testing.B) {
	if g := Probe().Gaps(); len(g) > 0 {
		b.Skip(g)
	}
	dir := b.TempDir()
	p := &Policy{Mode: ModeWorkspaceWrite, Network: NetworkOff, Writable: []string{dir}}
	for _, confined := range []bool{false, true} {
		b.Run(map[bool]string{false: "bare", true: "confined"}[confined], func(b *testing.B) {
			for b.Loop() {
				cmd := exec.Command("/bin/true")
				var m *Monitor
				var err error
				if confined {
					m, err = Start(p, Probe(), "", cmd.Start)
				} else {
					err = cmd.Start()
				}
				if err != nil {
					b.Fatal(err)
				}
				if err := cmd.Wait(); err != nil {
					b.Fatal(err)
				}
				m.Close()
			}
		})
	}
}
