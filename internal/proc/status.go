package proc

import (
	"bytes"
	"strconv"
)

// Status is what the server reads of /proc/PID/status.
type Status struct {
	SigIgn uint64 // the signals it ignores: bit n-1 for signal n
	// VoluntarySwitches counts the times it gave up the CPU to wait.
	VoluntarySwitches uint64
	// NoNewPrivs: it can gain no privileges by exec (no_new_privs).
	NoNewPrivs bool
	// Seccomp is its seccomp mode: 0 none, 1 strict, 2 filters.
	Seccomp int
}

// ReadStatus reads process pid's /proc/PID/status.
func ReadStatus(pid int) (Status, error) { return readStatus(path(pid, "status")) }

// ReadTaskStatus reads the status of thread tid of process pid.
func ReadTaskStatus(pid, tid int) (Status, error) { return readStatus(taskPath(pid, tid, "status")) }

func readStatus(p string) (Status, error) {
	var buf [2048]byte
	b, err := readFile(p, buf[:])
	if err != nil {
		return Status{}, err
	}
	return ParseStatus(b)
}

// ParseStatus parses a status file: "Name:\tvalue" lines. A field that
// is missing reads zero; one that is malformed is an error.
func ParseStatus(b []byte) (Status, error) {
	var s Status
	for line := range bytes.Lines(b) {
		key, v, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			continue
		}
		v = bytes.TrimSpace(v)
		var err error
		switch string(key) {
		case "SigIgn":
			s.SigIgn, err = strconv.ParseUint(string(v), 16, 64)
		case "voluntary_ctxt_switches":
			s.VoluntarySwitches, err = strconv.ParseUint(string(v), 10, 64)
		case "NoNewPrivs":
			s.NoNewPrivs = string(v) == "1"
		case "Seccomp":
			s.Seccomp, err = strconv.Atoi(string(v))
		}
		if err != nil {
			return Status{}, ErrFormat
		}
	}
	return s, nil
}

// Confined reports whether the status is a sandboxed command's, as
// yieldshell's sandbox leaves it: no_new_privs and seccomp filters.
func (s Status) Confined() bool { return s.NoNewPrivs && s.Seccomp == 2 }

// Ignores reports whether the status says signal sig is ignored.
func (s Status) Ignores(sig int) bool {
	return sig > 0 && sig <= 64 && s.SigIgn&(1<<(uint(sig)-1)) != 0
}
