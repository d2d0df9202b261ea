//go:build unix

package proc

import (
	"os"
	"strconv"
	"syscall"
)

// Owned reports whether process pid is in this process's PID namespace and
// runs as this process's effective uid.
func Owned(pid int) bool {
	fi, err := os.Stat(root + "/" + strconv.Itoa(pid))
	if err != nil {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || st.Uid != uint32(os.Geteuid()) {
		return false
	}
	ns, err := os.Readlink(path(pid, "ns/pid"))
	if err != nil {
		return false
	}
	self, err := os.Readlink(root + "/self/ns/pid")
	return err == nil && ns == self
}
