//go:build unix

package session

import (
	"context"
	"syscall"

	"github.com/yieldshell/yieldshell/internal/pty"
)

// signalTree sends sig to the process group, and to every descendant that
// left the group (setsid, daemons) but still carries the process's tag.
func (p *Process) signalTree(sig syscall.Signal) error {
	err := p.proc.Signal(sig)
	for pid, v := range pty.Tagged(context.Background(), tagKey) {
		if v != p.tag {
			continue
		}
		if pgid, e := syscall.Getpgid(pid); e == nil && pgid == p.Pid {
			continue // the group signal reached it
		}
		_ = syscall.Kill(pid, sig) // ESRCH: gone in the meantime
	}
	return err
}
