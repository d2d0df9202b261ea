//go:build unix

package linerpc

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// pollable returns a copy of f's descriptor in non-blocking mode, which
// the runtime polls, or nil. The mode belongs to the open pipe or socket,
// which only the server reads: its commands get terminals and pipes of
// their own.
func pollable(f *os.File) *os.File {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	dup := -1
	if rc.Control(func(fd uintptr) { dup, err = unix.FcntlInt(fd, unix.F_DUPFD_CLOEXEC, 0) }) != nil || err != nil {
		return nil
	}
	if unix.SetNonblock(dup, true) != nil {
		_ = unix.Close(dup)
		return nil
	}
	p := os.NewFile(uintptr(dup), f.Name())
	if p.SetReadDeadline(time.Time{}) != nil {
		_ = p.Close()
		return nil
	}
	return p
}
