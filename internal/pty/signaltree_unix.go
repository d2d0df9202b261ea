//go:build unix

package pty

import (
	"context"
	"syscall"
)

// SignalTree sends sig to the process group, and to every descendant that
// left the group (setsid, daemons) but still carries the tag key=value.
func (p *Process) SignalTree(sig syscall.Signal, key, value string) error {
	err := p.Signal(sig)
	for pid, v := range Tagged(context.Background(), key) {
		if v != value {
			continue
		}
		if pgid, e := syscall.Getpgid(pid); e == nil && pgid == p.pid {
			continue // the group signal reached it
		}
		_ = syscall.Kill(pid, sig) // ESRCH: gone in the meantime
	}
	return err
}
