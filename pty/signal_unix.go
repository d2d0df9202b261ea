//go:build unix

package pty

import (
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/yieldshell/yieldshell/internal/proc"
)

func signalName(s syscall.Signal) string { return unix.SignalName(s) }

func signalNum(name string) syscall.Signal { return unix.SignalNum(name) }

// KillPid sends sig to one process.
func KillPid(pid int, sig syscall.Signal) error { return syscall.Kill(pid, sig) }

// HangUpIgnorers ends, the way closing a terminal does, the shells of a
// PTY-mode process's terminal session that ignore sig: an interactive
// shell ignores SIGTERM but leaves on SIGHUP (hanging up its own jobs), so
// it gets SIGHUP and SIGCONT instead of sitting out the grace period until
// SIGKILL. Other programs that ignore sig, and shells that ignore SIGHUP
// too, still get SIGKILL after the grace.
func (p *Process) HangUpIgnorers(sig syscall.Signal) {
	if !p.TTY() || sig == syscall.SIGHUP || sig == syscall.SIGKILL {
		return
	}
	for _, pid := range sessionMembers(p.pid) {
		if isShell(pid) && ignores(pid, sig) {
			_ = syscall.Kill(pid, syscall.SIGHUP)  // ESRCH: gone meanwhile
			_ = syscall.Kill(pid, syscall.SIGCONT) // a stopped shell must see it
		}
	}
}

// sessionMembers lists the processes of session sid (the PTY's session,
// led by the process's direct child).
func sessionMembers(sid int) []int {
	all, err := proc.Pids()
	if err != nil {
		return nil
	}
	var pids []int
	for _, pid := range all {
		if s, err := unix.Getsid(pid); err == nil && s == sid {
			pids = append(pids, pid)
		}
	}
	return pids
}

// ignores reports whether process pid ignores sig (SigIgn in
// /proc/PID/status).
func ignores(pid int, sig syscall.Signal) bool {
	st, err := proc.ReadStatus(pid)
	return err == nil && st.Ignores(int(sig))
}

// isShell reports whether process pid runs a shell (by its command name).
func isShell(pid int) bool {
	comm, err := proc.ReadComm(pid)
	if err != nil {
		return false
	}
	switch comm {
	case "bash", "zsh", "fish", "sh", "dash", "ksh", "mksh", "tcsh", "csh", "busybox":
		return true
	}
	return false
}
