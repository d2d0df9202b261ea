package proc

// GroupCPU returns the CPU time, in clock ticks, that the live processes of
// process group pgid have used, with that of the children they have
// reaped (a shim's short-lived helpers), and whether a thread of one of
// them is runnable or in an uninterruptible wait now (loading, but perhaps
// not given a CPU on a busy machine). It reads /proc; ok is false when the
// kernel cannot be asked.
func GroupCPU(pgid int) (ticks int64, running, ok bool) {
	pids, err := Pids()
	if err != nil {
		return 0, false, false
	}
	for _, pid := range pids {
		st, err := ReadStat(pid)
		if err != nil || st.Pgrp != pgid {
			continue // gone in the meantime, or another group's
		}
		ticks += st.Utime + st.Stime + st.Cutime + st.Cstime
		running = running || st.Runnable() || threadRunnable(pid)
	}
	return ticks, running, true
}

// threadRunnable reports whether a thread of process pid is runnable: a
// main thread waiting on a futex for a worker thread (node starting) that
// a busy machine has not given a CPU yet is still loading.
func threadRunnable(pid int) bool {
	tids, err := Tasks(pid)
	if err != nil {
		return false
	}
	for _, tid := range tids {
		if st, err := ReadTaskStat(pid, tid); err == nil && st.Runnable() {
			return true
		}
	}
	return false
}
