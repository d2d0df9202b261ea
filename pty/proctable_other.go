//go:build unix && !linux && !darwin

package pty

import "errors"

// StartTime is implemented for Linux, macOS and Windows only.
func StartTime(pid int) (uint64, error) {
	return 0, errors.New("reading a process start time: not supported on this system")
}
