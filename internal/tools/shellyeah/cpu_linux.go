package shellyeah

import (
	"bytes"
	"os"
	"strconv"
)

// groupCPU returns the CPU time, in clock ticks, that the live processes of
// process group pgid have used, with that of the children they have
// reaped (a shim's short-lived helpers), and whether a thread of one of
// them is runnable or in an uninterruptible wait now (loading, but perhaps
// not given a CPU on a busy machine). It reads /proc; ok is false when the
// kernel cannot be asked.
func groupCPU(pgid int) (ticks int64, running, ok bool) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, false, false
	}
	for _, e := range entries {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // gone in the meantime
		}
		// The command name, in parentheses, may hold anything: the fields
		// that follow the last ")" are state, ppid, pgrp, ... utime, stime,
		// cutime, cstime.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(b[i+1:])
		if len(f) < 15 || string(f[2]) != strconv.Itoa(pgid) {
			continue
		}
		for _, t := range f[11:15] {
			n, _ := strconv.ParseInt(string(t), 10, 64)
			ticks += n
		}
		running = running || runnable(f[0]) || threadRunnable(e.Name())
	}
	return ticks, running, true
}

// runnable reports whether a /proc state field is R (running or
// runnable) or D (uninterruptible wait, as for disk).
func runnable(state []byte) bool {
	return string(state) == "R" || string(state) == "D"
}

// threadRunnable reports whether a thread of process pid is runnable: a
// main thread waiting on a futex for a worker thread (node starting) that
// a busy machine has not given a CPU yet is still loading.
func threadRunnable(pid string) bool {
	tasks, err := os.ReadDir("/proc/" + pid + "/task")
	if err != nil {
		return false
	}
	for _, task := range tasks {
		b, err := os.ReadFile("/proc/" + pid + "/task/" + task.Name() + "/stat")
		if err != nil {
			continue
		}
		if i := bytes.LastIndexByte(b, ')'); i >= 0 {
			if f := bytes.Fields(b[i+1:]); len(f) > 0 && runnable(f[0]) {
				return true
			}
		}
	}
	return false
}
