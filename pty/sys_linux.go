package pty

import (
	"fmt"
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

// SetChildSubreaper makes the calling process the reaper of its orphaned
// descendants (Linux PR_SET_CHILD_SUBREAPER).
//
// Adopted orphans are reaped silently by the Reaper, so a Reaper should be
// running whenever this is set.
func SetChildSubreaper() error {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("setting child subreaper: %w", err)
	}
	return nil
}
