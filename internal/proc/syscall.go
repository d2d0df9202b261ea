package proc

import (
	"bytes"
	"fmt"
	"strconv"
)

// Syscall is the system call a thread is in (/proc/PID/task/TID/syscall).
type Syscall struct {
	Nr     int64     // its number; -1 when the thread is in none (running)
	Args   [6]uint64 // its six arguments, as the kernel passes them
	SP, PC uint64    // the thread's stack pointer and program counter
}

// ReadSyscall reads the system call thread tid of process pid is in. It
// fails for another user's thread (os.IsPermission tells) and a zombie.
func ReadSyscall(pid, tid int) (Syscall, error) {
	var buf [256]byte
	b, err := readFile(taskPath(pid, tid, "syscall"), buf[:])
	if err != nil {
		return Syscall{}, err
	}
	return ParseSyscall(b)
}

// ParseSyscall parses a syscall file: "running", "-1 SP PC" (preempted
// in user space), or "NR ARG1 ... ARG6 SP PC" with hexadecimal arguments.
// A line cut short leaves the rest zero; a field that does not parse is an
// ErrFormat.
func ParseSyscall(b []byte) (Syscall, error) {
	s := Syscall{Nr: -1}
	f := bytes.Fields(b)
	if len(f) < 2 {
		return s, nil
	}
	nr, err := strconv.ParseInt(string(f[0]), 10, 64)
	if err != nil || nr < 0 {
		return s, nil
	}
	s.Nr = nr
	vals := make([]*uint64, 0, len(s.Args)+2)
	for i := range s.Args {
		vals = append(vals, &s.Args[i])
	}
	vals = append(vals, &s.SP, &s.PC)
	for i, v := range vals {
		if i+1 >= len(f) {
			break
		}
		if *v, err = strconv.ParseUint(string(bytes.TrimPrefix(f[i+1], []byte("0x"))), 16, 64); err != nil {
			return Syscall{}, fmt.Errorf("%w: syscall field %q", ErrFormat, f[i+1])
		}
	}
	return s, nil
}
