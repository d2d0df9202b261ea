//go:build unix && !linux && !darwin

package pty

import "errors"

// StartTime is implemented for Linux and macOS only.
func StartTime(pid int) (uint64, error) {
	return 0, errors.New("reading a process start time: not supported on this system")
}

// SetChildSubreaper is Linux-only; elsewhere orphaned descendants go to
// init (launchd), as they would without a subreaper.
func SetChildSubreaper() error {
	return errors.New("setting child subreaper: not supported on this system")
}
