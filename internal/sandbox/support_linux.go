package sandbox

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// Probe asks the kernel what it offers.
func Probe() Support {
	s := Support{LandlockABI: landlockABI()}
	action := uint32(retNotify)
	_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_GET_ACTION_AVAIL, 0, uintptr(unsafe.Pointer(&action)))
	s.Seccomp = errno == 0
	return s
}
