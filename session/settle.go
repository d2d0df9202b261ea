package session

import (
	"context"
	"time"
)

// WaitQuiet blocks until the process has ended, no state change (output,
// exit) has happened for quiet, the deadline passes, or ctx is done. It
// serves answers that should carry a start's or an input's first reaction
// without waiting for the end.
func (p *Process) WaitQuiet(ctx context.Context, deadline time.Time, quiet time.Duration) Reason {
	limit := time.NewTimer(time.Until(deadline))
	defer limit.Stop()
	calm := time.NewTimer(quiet)
	defer calm.Stop()
	for {
		p.mu.Lock()
		ended, ch := p.ended, p.changed
		p.mu.Unlock()
		if ended {
			return ReasonExited
		}
		select {
		case <-ch:
			calm.Reset(quiet)
		case <-calm.C:
			return ReasonQuiet
		case <-limit.C:
			return ReasonDeadline
		case <-ctx.Done():
			return ReasonCancelled
		}
	}
}
