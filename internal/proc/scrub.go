package proc

import "os"

// ScrubEnv unsets names and, where the kernel shows the initial
// environment to others (Linux: /proc/PID/environ), overwrites their
// entries there with NUL bytes. os.Unsetenv alone only edits the Go
// runtime's copy: the block the process was started with stays in its
// memory, and any process of the same user (every command the server
// runs) can read it.
func ScrubEnv(names ...string) error {
	for _, n := range names {
		if err := os.Unsetenv(n); err != nil {
			return err
		}
	}
	return scrubInitial(names)
}
