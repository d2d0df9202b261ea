package proc

import (
	"bytes"
	"os"
	"strings"
)

// ReadCmdline returns process pid's argument vector (/proc/PID/cmdline),
// as the process left it.
func ReadCmdline(pid int) ([]string, error) {
	b, err := readFile(path(pid, "cmdline"), nil)
	if err != nil {
		return nil, err
	}
	b = bytes.TrimRight(b, "\x00")
	if len(b) == 0 {
		return nil, nil
	}
	return strings.Split(string(b), "\x00"), nil
}

// ReadExe returns the path of the program process pid runs
// (/proc/PID/exe), without the kernel's " (deleted)" suffix.
func ReadExe(pid int) (string, error) {
	s, err := os.Readlink(path(pid, "exe"))
	return strings.TrimSuffix(s, " (deleted)"), err
}
