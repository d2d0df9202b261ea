package pty

import (
	"context"
	"time"
)

// TreeAlive reports whether a command's tree still has a live process: a
// member of process group pgid, or a process whose environment holds
// key=value (a descendant that left the group). Zombies do not count: they
// have ended and only wait to be reaped.
func TreeAlive(pgid int, key, value string) bool {
	return len(Members(pgid, key, value)) > 0
}

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
