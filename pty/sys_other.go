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

// setDeathSignal does nothing here: only Linux has a parent-death signal.
// Children of a server killed outright get the terminal hang-up (PTY mode)
// and the next server's start-up sweep cannot find them (no /proc).
func setDeathSignal(*syscall.SysProcAttr) {}

// flushInput discards the input a terminal holds unread (tcflush with
// TCIFLUSH) through fd, a descriptor of its slave side: TIOCFLUSH with
// FREAD on the BSDs and macOS.
func flushInput(fd int) error { return unix.IoctlSetPointerInt(fd, unix.TIOCFLUSH, 1) }
