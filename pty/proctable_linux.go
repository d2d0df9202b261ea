package pty

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// StartTime returns when process pid started, in clock ticks since boot:
// with the pid it identifies a process even after the pid is reused.
func StartTime(pid int) (uint64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name may hold spaces and parentheses: fields start after
	// the last ')'. starttime is field 22, the 20th after the name.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, fmt.Errorf("parsing /proc/%d/stat", pid)
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return 0, fmt.Errorf("parsing /proc/%d/stat", pid)
	}
	return strconv.ParseUint(f[19], 10, 64)
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
