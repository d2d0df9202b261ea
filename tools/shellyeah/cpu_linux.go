package shellyeah

import (
	"bytes"
	"os"
	"strconv"
)

// groupCPU returns the CPU time, in clock ticks, that the live processes of
// process group pgid have used, read from /proc, and whether one of them is
// running or waiting for a CPU (state R): on a loaded machine a program
// that has just started may not have been given a tick yet. ok is false
// when the kernel cannot be asked.
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
		// that follow the last ")" are state, ppid, pgrp, ... utime, stime.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(b[i+1:])
		if len(f) < 13 || string(f[2]) != strconv.Itoa(pgid) {
			continue
		}
		u, _ := strconv.ParseInt(string(f[11]), 10, 64)
		s, _ := strconv.ParseInt(string(f[12]), 10, 64)
		ticks += u + s
		running = running || string(f[0]) == "R"
	}
	return ticks, running, true
}
