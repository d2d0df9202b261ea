//go:build unix

package pty

import (
	"syscall"
)

// SignalTree sends sig to the process group, and to every descendant that
// left the group (setsid, daemons) but still carries the tag key=value.
//
// The group is signalled first, at once. The descendants are found as
// [Members] finds them: as the child subreaper, only the environments of
// the server's own descendants are read, so a machine full of unrelated
// processes in the middle of exec (each waited out for up to a second by
// a read of its environment) cannot hold a stop's or timeout's signals,
// nor the goroutine that escalates them.
func (p *Process) SignalTree(sig syscall.Signal, key, value string) error {
	err := p.Signal(sig)
	for _, pid := range members(p.pid, key, value, p.born) {
		if pgid, e := syscall.Getpgid(pid); e == nil && pgid == p.pid {
			continue // the group signal reached it
		}
		_ = syscall.Kill(pid, sig) // ESRCH: gone in the meantime
	}
	return err
}
