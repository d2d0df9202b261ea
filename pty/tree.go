package pty

import (
	"context"
	"time"
)

// awaitPoll paces [AwaitExit] where the system offers nothing to wait on.
const awaitPoll = 100 * time.Millisecond

// sleepCtx waits d or until ctx is done.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// TreeAlive reports whether anything of the command's tree lives: a member
// of its process group (its job on Windows), or a process whose environment
// holds key=value (a descendant that left the group).
func (p *Process) TreeAlive(key, value string) bool { return treeAlive(p.pid, key, value, p.born) }

// AwaitTree blocks until nothing of the command's tree is left (see
// [Process.TreeAlive]), or ctx is done. It waits on the processes
// themselves ([AwaitExit]), so a long-lived descendant costs nothing.
func (p *Process) AwaitTree(ctx context.Context, key, value string) error {
	for {
		pids := members(p.pid, key, value, p.born)
		if len(pids) == 0 {
			return nil
		}
		if AwaitExit(ctx, pids) != nil && ctx.Err() != nil {
			return ctx.Err()
		}
	}
}
