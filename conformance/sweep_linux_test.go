//go:build unix

package conformance

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestSweepJudgesOnlyItsOwn: the start-up sweep ends what a dead server of
// this user and PID namespace left behind, counting a zombie server as
// dead, and leaves alone tagged processes of another PID namespace or
// another user, whose tags it cannot judge.
//
// Spec: DESIGN Reaping: a setsid grandchild of a dead server is found "by an
// environment tag"; the tag names a server only within its user and PID
// namespace.
func TestSweepJudgesOnlyItsOwn(t *testing.T) {
	// A "server" that has exited but is not reaped: a zombie, until Wait.
	server := exec.Command("sleep", "0")
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	waitExited(t, server.Process.Pid)
	startTick := statField(t, server.Process.Pid, 22)
	t.Cleanup(func() { _ = server.Wait() })
	orphanTag := fmt.Sprintf("YIELDSHELL_TAG=%d:%s:proc_orphan", server.Process.Pid, startTick)
	orphan := startTagged(t, orphanTag, "sleep", "120")

	var spared []int // pids the sweep must leave alone
	if os.Geteuid() != 0 {
		t.Log("not root: the other-namespace and other-user cases are not checked")
	} else {
		deadTag := "YIELDSHELL_TAG=1:1:proc_elsewhere" // pid 1 never started at tick 1
		if _, err := exec.LookPath("unshare"); err == nil {
			// Only the sleep, in the new namespace, carries the tag.
			u := startTagged(t, "", "unshare", "--pid", "--fork", "--kill-child", "env", deadTag, "sleep", "120")
			var inner []string
			eventually(t, 10*time.Second, "unshare's child", func() bool { inner = childrenOf(u.Process.Pid); return len(inner) == 1 })
			pid, _ := strconv.Atoi(inner[0])
			spared = append(spared, pid)
		}
		if _, err := exec.LookPath("setpriv"); err == nil {
			c := startTagged(t, deadTag, "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "sleep", "120")
			eventually(t, 10*time.Second, "setpriv to run sleep as uid 65534", func() bool {
				fi, err := os.Stat(fmt.Sprintf("/proc/%d", c.Process.Pid))
				return err == nil && fi.Sys().(*syscall.Stat_t).Uid == 65534
			})
			spared = append(spared, c.Process.Pid)
		}
	}
	// A server that serves sweeps (a one-shot command such as tools does
	// not; that cannot be checked here, where parallel tests start servers).
	start(t, lifecycleVersion)
	eventually(t, goneWithin, "the zombie server's orphan to be ended", func() bool { return !alive(orphan.Process.Pid) })
	for _, pid := range spared {
		if !alive(pid) {
			t.Errorf("pid %d (another namespace's or user's) was ended by the sweep", pid)
		}
	}
}

// startTagged starts a command with the tag (if any) in its environment, in
// a process group of its own that is killed at cleanup.
func startTagged(t *testing.T, tag string, name string, args ...string) *exec.Cmd {
	t.Helper()
	c := exec.Command(name, args...)
	if tag != "" {
		c.Env = append(os.Environ(), tag)
	}
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL); _ = c.Wait() })
	return c
}

// waitExited waits until pid has exited, without reaping it.
func waitExited(t *testing.T, pid int) {
	t.Helper()
	var info unix.Siginfo
	if err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil); err != nil {
		t.Fatal(err)
	}
}

// childrenOf lists pid's children.
func childrenOf(pid int) []string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	return strings.Fields(string(b))
}
