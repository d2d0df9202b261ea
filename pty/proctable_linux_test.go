package pty

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestAliveZombie: a process that has exited but is not reaped yet is not
// alive; before it exits it is, and only with its own start time.
func TestAliveZombie(t *testing.T) {
	p := startRaw(t, "/bin/sleep", "sleep", "30")
	st, err := StartTime(p.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if !Alive(p.Pid, st) || Alive(p.Pid, st+1) {
		t.Errorf("Alive(running, its start) = %v, Alive(running, another start) = %v; want true, false", Alive(p.Pid, st), Alive(p.Pid, st+1))
	}
	_ = p.Signal(syscall.SIGKILL)
	// Wait for the exit without reaping: the process stays a zombie.
	var info unix.Siginfo
	if err := unix.Waitid(unix.P_PID, p.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil); err != nil {
		t.Fatal(err)
	}
	if Alive(p.Pid, st) {
		t.Error("a zombie counts as alive")
	}
}

// TestOwnedOtherUserAndNamespace: a process of another uid, or in another
// PID namespace, is not ours to judge. Both need root here.
func TestOwnedOtherUserAndNamespace(t *testing.T) {
	self := startRaw(t, "/bin/sleep", "sleep", "30")
	if !Owned(self.Pid) {
		t.Errorf("Owned(our own child) = false")
	}
	if os.Geteuid() != 0 {
		t.Skip("starting a process as another uid or in a new PID namespace needs root")
	}
	if path, err := exec.LookPath("setpriv"); err != nil {
		t.Log("setpriv not installed: the other-uid case is not checked")
	} else {
		other := startRaw(t, path, "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "sleep", "30")
		waitFor(t, "setpriv to exec sleep", func() bool { return !Owned(other.Pid) })
	}
	path, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("unshare not installed")
	}
	outer := startRaw(t, path, "unshare", "--pid", "--fork", "sleep", "30")
	var inner int
	waitFor(t, "unshare's child", func() bool {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(outer.Pid) + "/task/" + strconv.Itoa(outer.Pid) + "/children")
		inner, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return inner > 0
	})
	t.Cleanup(func() { _ = syscall.Kill(inner, syscall.SIGKILL) })
	if Owned(inner) {
		t.Error("a process in another PID namespace counts as owned")
	}
}

// startRaw starts a process outside any Reaper and kills and reaps it at
// cleanup.
func startRaw(t *testing.T, path string, args ...string) *os.Process {
	t.Helper()
	p, err := os.StartProcess(path, args, &os.ProcAttr{Files: []*os.File{nil, nil, os.Stderr}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Kill(); _, _ = p.Wait() })
	return p
}
