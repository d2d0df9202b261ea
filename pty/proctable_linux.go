package pty

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// StartTime returns when process pid started, in clock ticks since boot:
// with the pid it identifies a process even after the pid is reused.
func StartTime(pid int) (uint64, error) {
	_, start, err := readStat(pid)
	return start, err
}

// Alive reports whether the process that started at start as pid still
// runs: a zombie, which has ended and waits to be reaped, does not.
func Alive(pid int, start uint64) bool {
	state, st, err := readStat(pid)
	return err == nil && st == start && state != 'Z' && state != 'X'
}

// Owned reports whether process pid is in this process's PID namespace and
// runs as this process's effective uid: only for such a process does a pid
// written in its environment name a process this one can see.
func Owned(pid int) bool {
	fi, err := os.Stat(fmt.Sprintf("/proc/%d", pid))
	if err != nil {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || st.Uid != uint32(os.Geteuid()) {
		return false
	}
	ns, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/pid", pid))
	if err != nil {
		return false
	}
	self, err := os.Readlink("/proc/self/ns/pid")
	return err == nil && ns == self
}

// readStat reads a process's state letter and start time from /proc.
func readStat(pid int) (state byte, start uint64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, err
	}
	// The command name may hold spaces and parentheses: fields start after
	// the last ')'. The state is the first of them; starttime is field 22,
	// the 20th after the name.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, 0, fmt.Errorf("parsing /proc/%d/stat", pid)
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 || len(f[0]) != 1 {
		return 0, 0, fmt.Errorf("parsing /proc/%d/stat", pid)
	}
	start, err = strconv.ParseUint(f[19], 10, 64)
	return f[0][0], start, err
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
