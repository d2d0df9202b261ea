// Package envscrub removes variables from the environment block the kernel
// shows as /proc/PID/environ. os.Unsetenv only edits the Go runtime's copy:
// the block the process was started with stays in its memory, and any
// process of the same user (every command the server runs) can read it.
package envscrub

import "os"

// Scrub unsets names and, where the kernel shows the initial environment
// to others (Linux), overwrites their entries there with NUL bytes.
func Scrub(names ...string) error {
	for _, n := range names {
		if err := os.Unsetenv(n); err != nil {
			return err
		}
	}
	return scrubInitial(names)
}
