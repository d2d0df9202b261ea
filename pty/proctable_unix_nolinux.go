//go:build unix && !linux

package pty

import "errors"

// The process table on a Unix without /proc: start times are per system
// (proctable_darwin.go, proctable_other.go).

// Alive reports whether the process that started at start as pid still
// runs (a zombie, here, counts as running).
func Alive(pid int, start uint64) bool {
	st, err := StartTime(pid)
	return err == nil && st == start
}

// Owned is true here: without /proc, [Tagged] finds nothing to judge.
func Owned(pid int) bool { return true }

// SetChildSubreaper is Linux-only; elsewhere orphaned descendants go to
// init (launchd), as they would without a subreaper.
func SetChildSubreaper() error {
	return errors.New("setting child subreaper: not supported on this system")
}
