package pty

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// StartTime returns when process pid started, in clock ticks since boot:
// with the pid it identifies a process even after the pid is reused.
func StartTime(pid int) (uint64, error) {
	st, err := readProcStat(pid)
	return st.start, err
}

// Alive reports whether the process that started at start as pid still
// runs: a zombie, which has ended and waits to be reaped, does not.
func Alive(pid int, start uint64) bool {
	st, err := readProcStat(pid)
	return err == nil && st.start == start && !st.gone()
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

// procStat is what the server reads of /proc/PID/stat.
type procStat struct {
	state      byte   // R, S, Z ...
	ppid, pgrp int    // parent, process group
	flags      uint64 // the kernel's PF_* flags
	start      uint64 // when it started, in clock ticks since boot
	// Where the program's code ends and where its environment lies in its
	// memory: zero while an exec sets the new image up (and when the
	// kernel does not say).
	endCode, envStart, envEnd uint64
}

// readProcStat reads process pid's /proc/PID/stat.
func readProcStat(pid int) (procStat, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, err
	}
	// The command name may hold spaces and parentheses: fields start after
	// the last ')'. f[n-3] is field n of proc(5).
	bad := fmt.Errorf("parsing /proc/%d/stat", pid)
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, bad
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 25 || len(f[0]) != 1 {
		return procStat{}, bad
	}
	st := procStat{state: f[0][0]}
	var errs [7]error
	st.ppid, errs[0] = strconv.Atoi(string(f[1]))
	st.pgrp, errs[1] = strconv.Atoi(string(f[2]))
	st.flags, errs[6] = strconv.ParseUint(string(f[6]), 10, 64)
	st.start, errs[2] = strconv.ParseUint(string(f[19]), 10, 64)
	st.endCode, errs[5] = strconv.ParseUint(string(f[24]), 10, 64)
	if len(f) > 48 { // fields 50 and 51, since Linux 3.5
		st.envStart, errs[3] = strconv.ParseUint(string(f[47]), 10, 64)
		st.envEnd, errs[4] = strconv.ParseUint(string(f[48]), 10, 64)
	}
	if errors.Join(errs[:]...) != nil {
		return procStat{}, bad
	}
	return st, nil
}

// execDone reports whether the process's image is set up: execve fills in
// the environment's place, then the code's, only once it is done.
func (s procStat) execDone() bool { return s.envEnd != 0 && s.endCode != 0 }

// pfExiting is the kernel's PF_EXITING: the process is in exit(2).
const pfExiting = 0x4

// gone reports whether the process has ended (it may wait to be reaped).
func (s procStat) gone() bool { return s.state == 'Z' || s.state == 'X' }

// exiting reports whether the process is in exit(2) (and may not be a
// zombie yet).
func (s procStat) exiting() bool { return s.flags&pfExiting != 0 }

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
