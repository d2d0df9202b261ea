package pty

import (
	"syscall"

	"golang.org/x/sys/windows"
)

// signalNames are the signals a request may name on Windows. Only SIGKILL
// is exact (the job is terminated); every other one asks the command to
// stop (Ctrl-C through the pseudo console, Ctrl-Break to a pipe-mode
// command's group).
var signalNames = map[syscall.Signal]string{
	syscall.SIGHUP: "SIGHUP", syscall.SIGINT: "SIGINT", syscall.SIGQUIT: "SIGQUIT",
	syscall.SIGKILL: "SIGKILL", syscall.SIGTERM: "SIGTERM",
}

func signalName(s syscall.Signal) string { return signalNames[s] }

func signalNum(name string) syscall.Signal {
	for s, n := range signalNames {
		if n == name {
			return s
		}
	}
	return 0
}

// KillPid ends one process (on Windows every signal that reaches a single
// pid ends it: there is nothing else to deliver).
func KillPid(pid int, sig syscall.Signal) error {
	h, err := windows.OpenProcess(windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		return err
	}
	defer windows.CloseHandle(h)
	return windows.TerminateProcess(h, 1)
}

// HangUpIgnorers does nothing on Windows: a pseudo console's shells get
// CTRL_CLOSE_EVENT when the console closes, and the job ends the rest.
func (p *Process) HangUpIgnorers(sig syscall.Signal) {}
