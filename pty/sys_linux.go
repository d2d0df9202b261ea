package pty

import (
	"syscall"

	"golang.org/x/sys/unix"
)

const (
	ioctlGetTermios = unix.TCGETS
	ioctlSetTermios = unix.TCSETS
	ioctlUnread     = unix.TIOCINQ // FIONREAD
)

// bootTicks returns the time since boot in the clock ticks /proc gives
// start times in (USER_HZ: 100 on every architecture Go supports), or 0.
// Both are the kernel's boot clock, as this process's time namespace
// sees it.
func bootTicks() uint64 {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_BOOTTIME, &ts) != nil {
		return 0
	}
	return uint64(ts.Nano()) / (1e9 / 100)
}

// setDeathSignal asks the kernel to SIGKILL the child if the server dies
// without cleaning up. It is bound to the forking OS thread, so it is a
// backstop only; the environment tag and the start-up sweep do the rest.
func setDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
