package session

import (
	"context"
	"time"
)

// await is a test helper: it blocks until cond, evaluated under p.mu after every state change,
// holds; or until the deadline (false, nil) or ctx is done (false, ctx.Err()).
func (p *Process) await(ctx context.Context, deadline time.Time, cond func() bool) (bool, error) {
	var timeout <-chan time.Time
	if !deadline.IsZero() {
		t := time.NewTimer(time.Until(deadline))
		defer t.Stop()
		timeout = t.C
	}
	for {
		p.mu.Lock()
		done := cond()
		ch := p.changedLocked()
		p.mu.Unlock()
		if done {
			return true, nil
		}
		select {
		case <-ch:
		case <-timeout:
			return false, nil
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
}
