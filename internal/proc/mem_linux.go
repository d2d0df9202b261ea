package proc

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// ReadMem reads n bytes at addr of process pid: with process_vm_readv,
// else through /proc/PID/mem (both need the right to trace it, which a
// server has over its own children).
func ReadMem(pid int, addr uintptr, n int) ([]byte, error) {
	if n <= 0 {
		return nil, nil
	}
	b := make([]byte, n)
	local := []unix.Iovec{{Base: &b[0]}}
	local[0].SetLen(n)
	remote := []unix.RemoteIovec{{Base: addr, Len: n}}
	if m, err := unix.ProcessVMReadv(pid, local, remote, 0); err == nil && m == n {
		return b, nil
	}
	f, err := os.Open(root + "/" + strconv.Itoa(pid) + "/mem")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if _, err := f.ReadAt(b, int64(addr)); err != nil {
		return nil, err
	}
	return b, nil
}
