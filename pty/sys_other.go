//go:build unix && !linux

package pty

import (
	"syscall"

	"golang.org/x/sys/unix"
)

const (
	ioctlGetTermios = unix.TIOCGETA
	ioctlSetTermios = unix.TIOCSETA
	// FIONREAD: _IOR(\'f\', 127, int) on the BSDs and macOS.
	ioctlUnread = 0x4004667f
)

// bootTicks returns 0: only Linux's tree scan uses the command's start.
func bootTicks() uint64 { return 0 }

// setDeathSignal does nothing here: only Linux has a parent-death signal.
// Children of a server killed outright get the terminal hang-up (PTY mode)
// and the next server's start-up sweep cannot find them (no /proc).
func setDeathSignal(*syscall.SysProcAttr) {}
