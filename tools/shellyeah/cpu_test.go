package shellyeah

import (
	"os/exec"
	"runtime"
	"syscall"
	"testing"
	"time"
)

func TestGroupCPU(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	// A shell spinning in a loop uses CPU time or is running; one asleep
	// neither.
	for _, c := range []struct {
		script string
		busy   bool
	}{
		{"while :; do :; done", true},
		{"exec sleep 30", false},
	} {
		cmd := exec.Command("/bin/sh", "-c", c.script)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		first, _, ok := groupCPU(cmd.Process.Pid)
		if !ok {
			t.Fatal("groupCPU: cannot read /proc")
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			time.Sleep(100 * time.Millisecond) // sampling CPU time, the condition under test
			now, running, _ := groupCPU(cmd.Process.Pid)
			if busy := now > first || running; busy == c.busy || time.Now().After(deadline) {
				if busy != c.busy {
					t.Errorf("%q: CPU ticks went from %d to %d", c.script, first, now)
				}
				break
			}
			first = now
		}
	}
}
