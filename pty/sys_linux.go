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

// setDeathSignal asks the kernel to SIGKILL the child if the server dies
// without cleaning up. It is bound to the forking OS thread, so it is a
// backstop only; the environment tag and the start-up sweep do the rest.
func setDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
