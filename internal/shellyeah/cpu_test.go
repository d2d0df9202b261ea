//go:build unix

package shellyeah

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/yieldshell/yieldshell/internal/proc"
)

func TestGroupCPU(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	// A shell spinning in a loop uses CPU time; one asleep does not.
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
		first, _, ok := proc.GroupCPU(cmd.Process.Pid)
		if !ok {
			t.Fatal("GroupCPU: cannot read /proc")
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			time.Sleep(100 * time.Millisecond) // sampling CPU time, the condition under test
			now, _, _ := proc.GroupCPU(cmd.Process.Pid)
			if busy := now > first; busy == c.busy || time.Now().After(deadline) {
				if busy != c.busy {
					t.Errorf("%q: CPU ticks went from %d to %d", c.script, first, now)
				}
				break
			}
			first = now
		}
	}
}

// The CPU time of helpers a shell ran and reaped counts (a version
// manager's shim runs several before the interpreter), and a spinning
// process is seen running.
func TestGroupCPUCountsReapedChildrenAndRunning(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	cmd := exec.Command("/bin/sh", "-c", `/bin/sh -c 'i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done'; exec sleep 30`)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() })
	sawRunning := false
	deadline := time.Now().Add(20 * time.Second)
	for {
		ticks, running, ok := proc.GroupCPU(cmd.Process.Pid)
		if !ok {
			t.Fatal("GroupCPU: cannot read /proc")
		}
		sawRunning = sawRunning || running
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/comm")
		asleep := string(b) == "sleep\n" && !running
		if asleep && ticks > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the shell asleep (%v) after its child's work, seen with %d ticks", asleep, ticks)
		}
		time.Sleep(10 * time.Millisecond) // sampling the group, the condition under test
	}
	if !sawRunning {
		t.Errorf("the spinning child was never seen running")
	}
}
