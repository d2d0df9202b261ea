package pty

import (
	"fmt"

	"golang.org/x/sys/windows"
)

// StartTime returns when process pid started, in 100 ns units since 1601:
// with the pid it identifies a process even after the pid is reused.
func StartTime(pid int) (uint64, error) {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return 0, fmt.Errorf("reading a process start time: %w", err)
	}
	defer windows.CloseHandle(h)
	var created, exited, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(h, &created, &exited, &kernel, &user); err != nil {
		return 0, fmt.Errorf("reading a process start time: %w", err)
	}
	return uint64(created.HighDateTime)<<32 | uint64(created.LowDateTime), nil
}

// Alive reports whether the process that started at start as pid still
// runs.
func Alive(pid int, start uint64) bool {
	st, err := StartTime(pid)
	if err != nil || st != start {
		return false
	}
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return false
	}
	defer windows.CloseHandle(h)
	var code uint32
	return windows.GetExitCodeProcess(h, &code) == nil && code == uint32(windows.STATUS_PENDING)
}

// Owned is true here: [Tagged] finds nothing on Windows.
func Owned(pid int) bool { return true }

// SetChildSubreaper does nothing on Windows, where nothing needs it: each
// command's job object holds its tree, detached descendants included, and
// ends it when the server's handle closes.
func SetChildSubreaper() error { return nil }
