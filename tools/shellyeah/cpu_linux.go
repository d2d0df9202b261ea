package shellyeah

import (
	"bytes"
	"os"
	"strconv"
)

// groupCPU returns the CPU time, in clock ticks, that the live processes of
// process group pgid have used, with that of the children they have
// reaped (a shim's short-lived helpers), and whether one of them is
// runnable or in an uninterruptible wait now (loading, but perhaps not
// given a CPU on a busy machine). It reads /proc; ok is false when the
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
		if st := string(f[0]); st == "R" || st == "D" {
			running = true
		}
	}
	return ticks, running, true
}
