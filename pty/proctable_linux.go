package pty

import (
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/yieldshell/yieldshell/internal/proc"
)

// StartTime returns when process pid started, in clock ticks since boot:
// with the pid it identifies a process even after the pid is reused.
func StartTime(pid int) (uint64, error) {
	st, err := proc.ReadStat(pid)
	return st.Start, err
}

// Alive reports whether the process that started at start as pid still
// runs: a zombie, which has ended and waits to be reaped, does not.
func Alive(pid int, start uint64) bool {
	st, err := proc.ReadStat(pid)
	return err == nil && st.Start == start && !st.Gone()
}

// Owned reports whether process pid is in this process's PID namespace and
// runs as this process's effective uid: only for such a process does a pid
// written in its environment name a process this one can see.
func Owned(pid int) bool {
	return proc.Owned(pid)
}

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
