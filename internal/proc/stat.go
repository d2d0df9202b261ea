package proc

import (
	"bytes"
	"errors"
	"strconv"
)

// Stat is what the server reads of /proc/PID/stat (proc(5); field
// numbers in brackets).
type Stat struct {
	Comm                string // [2] the command name, which may hold spaces and ')'
	State               byte   // [3] R, S, D, Z, T, X ...
	PPid, Pgrp, Session int    // [4] parent, [5] process group, [6] session
	// [7] the controlling terminal's device number (0: none), [8] that
	// terminal's foreground process group (-1: none).
	TtyNr, Tpgid int
	Flags        uint64 // [9] the kernel's PF_* flags
	// [14] [15] CPU time in user and kernel mode, [16] [17] that of the
	// children it waited for; in clock ticks.
	Utime, Stime, Cutime, Cstime int64
	Start                        uint64 // [22] when it started, in clock ticks since boot
	// [27] [50] [51] where the program's code ends and where its
	// environment lies in its memory: zero while an exec sets the new
	// image up (and, for the last two, before Linux 3.5).
	EndCode, EnvStart, EnvEnd uint64
}

// ErrFormat is returned for a file that does not parse.
var ErrFormat = errors.New("proc: malformed file")

// pfExiting is the kernel's PF_EXITING: the process is in exit(2).
const pfExiting = 0x4

// Gone reports whether the process has ended (it may wait to be reaped).
func (s Stat) Gone() bool { return s.State == 'Z' || s.State == 'X' }

// Exiting reports whether the process is in exit(2) (and may not be a
// zombie yet).
func (s Stat) Exiting() bool { return s.Flags&pfExiting != 0 }

// Runnable reports whether it runs or may (R), or waits uninterruptibly,
// as for a disk (D).
func (s Stat) Runnable() bool { return s.State == 'R' || s.State == 'D' }

// ExecDone reports whether the process's image is set up: execve fills in
// the environment's place, then the code's, only once it is done.
func (s Stat) ExecDone() bool { return s.EnvEnd != 0 && s.EndCode != 0 }

// ReadStat reads process pid's /proc/PID/stat.
func ReadStat(pid int) (Stat, error) { return readStat(path(pid, "stat")) }

// ReadTaskStat reads the stat of thread tid of process pid.
func ReadTaskStat(pid, tid int) (Stat, error) { return readStat(taskPath(pid, tid, "stat")) }

func readStat(p string) (Stat, error) {
	var buf [512]byte
	b, err := readFile(p, buf[:])
	if err != nil {
		return Stat{}, err
	}
	return ParseStat(b)
}

// ParseStat parses one stat line. The command name is whatever lies
// between the first '(' and the last ')': it may hold spaces and
// parentheses, so the fields are counted after the last ')'.
func ParseStat(b []byte) (Stat, error) {
	open := bytes.IndexByte(b, '(')
	i := bytes.LastIndexByte(b, ')')
	if open < 0 || i < open {
		return Stat{}, ErrFormat
	}
	// f[n-3] is field n.
	var fields [52][]byte
	f := fields[:0]
	for field := range bytes.FieldsSeq(b[i+1:]) {
		if len(f) == len(fields) {
			break
		}
		f = append(f, field)
	}
	if len(f) < 25 || len(f[0]) != 1 {
		return Stat{}, ErrFormat
	}
	st := Stat{Comm: string(b[open+1 : i]), State: f[0][0]}
	var errs [15]error
	st.PPid, errs[0] = strconv.Atoi(string(f[1]))
	st.Pgrp, errs[1] = strconv.Atoi(string(f[2]))
	st.Session, errs[2] = strconv.Atoi(string(f[3]))
	st.TtyNr, errs[13] = strconv.Atoi(string(f[4]))
	st.Tpgid, errs[14] = strconv.Atoi(string(f[5]))
	st.Flags, errs[3] = strconv.ParseUint(string(f[6]), 10, 64)
	st.Utime, errs[4] = strconv.ParseInt(string(f[11]), 10, 64)
	st.Stime, errs[5] = strconv.ParseInt(string(f[12]), 10, 64)
	st.Cutime, errs[6] = strconv.ParseInt(string(f[13]), 10, 64)
	st.Cstime, errs[7] = strconv.ParseInt(string(f[14]), 10, 64)
	st.Start, errs[8] = strconv.ParseUint(string(f[19]), 10, 64)
	st.EndCode, errs[9] = strconv.ParseUint(string(f[24]), 10, 64)
	if len(f) > 48 { // fields 50 and 51, since Linux 3.5
		st.EnvStart, errs[10] = strconv.ParseUint(string(f[47]), 10, 64)
		st.EnvEnd, errs[11] = strconv.ParseUint(string(f[48]), 10, 64)
	}
	if errors.Join(errs[:]...) != nil {
		return Stat{}, ErrFormat
	}
	return st, nil
}
