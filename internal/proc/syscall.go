package proc

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
)

// Syscall is the system call a thread is in (/proc/PID/task/TID/syscall).
type Syscall struct {
	Nr   int64     // its number; -1 when the thread is in none (running)
	Args [3]uint64 // its first three arguments
}

// ReadSyscall reads the system call thread tid of process pid is in. It
// fails for another user's thread (os.IsPermission tells) and a zombie.
func ReadSyscall(pid, tid int) (Syscall, error) {
	b, err := os.ReadFile(taskPath(pid, tid, "syscall"))
	if err != nil {
		return Syscall{}, err
	}
	return ParseSyscall(b)
}

// ParseSyscall parses a syscall file: "running", "-1 SP PC" (preempted
// in user space), or "NR ARG1 ... ARG6 SP PC" with hexadecimal arguments.
// An argument that does not parse is an ErrFormat.
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
	for i := range s.Args {
		if i+1 >= len(f) {
			break
		}
		if s.Args[i], err = strconv.ParseUint(string(bytes.TrimPrefix(f[i+1], []byte("0x"))), 16, 64); err != nil {
			return Syscall{}, fmt.Errorf("%w: syscall argument %q", ErrFormat, f[i+1])
		}
	}
	return s, nil
}
