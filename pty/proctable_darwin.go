package pty

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// StartTime returns when process pid started, in microseconds since the
// epoch: with the pid it identifies a process even after the pid is reused.
func StartTime(pid int) (uint64, error) {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil {
		return 0, fmt.Errorf("reading the start time of %d: %w", pid, err)
	}
	t := kp.Proc.P_starttime
	if t.Sec == 0 && t.Usec == 0 {
		return 0, fmt.Errorf("reading the start time of %d: no such process", pid)
	}
	return uint64(t.Sec)*1e6 + uint64(t.Usec), nil
}
