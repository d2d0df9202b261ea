package proc

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// Subreaper reports whether this process is a child subreaper: the
// parent its orphaned descendants are handed to, so that every process
// it started, and every process those started, stays below it.
func Subreaper() bool {
	var v int32
	err := unix.Prctl(unix.PR_GET_CHILD_SUBREAPER, uintptr(unsafe.Pointer(&v)), 0, 0, 0)
	return err == nil && v != 0
}
