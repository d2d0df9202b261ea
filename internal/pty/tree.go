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
