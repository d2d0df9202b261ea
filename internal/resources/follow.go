package resources

import (
	"context"
	"time"

	"github.com/yieldshell/yieldshell/internal/session"
)

// follower follows one process for its subscribers.
type follower struct {
	stop context.CancelFunc
}

// startFollower starts the goroutine that follows p; the Hub's WaitGroup
// joins it. A process that has already ended gets none: there is nothing
// more to tell. Called with h.mu held.
func (h *Hub) startFollower(p *session.Process) *follower {
	if p.Ended() {
		return &follower{stop: func() {}}
	}
	ctx, cancel := context.WithCancel(h.ctx)
	h.wg.Go(func() {
		defer cancel()
		h.followProcess(ctx, p, time.Now)
	})
	return &follower{stop: cancel}
}

// followProcess tells p's subscribers of each change to its resources
// until p ends or ctx is done:
//
//   - new output, on the screen or in the log: at most one notification
//     per interval; output that comes sooner is told at the interval's
//     end, in one notification;
//   - the program starts waiting for input: at once (once per wait: more
//     output starts a new one);
//   - the end: at once, and the follower stops.
//
// Nothing polls: it sleeps in the Process's own wait, which wakes on
// output and on the end, and asks the kernel about input on the same
// schedule as the wait tool.
func (h *Hub) followProcess(ctx context.Context, p *session.Process, now func() time.Time) {
	var (
		last     time.Time // the last notification
		pending  bool      // output not told yet, waiting for the interval
		waiting  bool      // the current input wait was told
		seen     *uint64   // output reads already told (or pending)
		deadline time.Time
	)
	turn := 0 // notifications sent, for updated's turns
	tell := func() {
		last, pending = now(), false
		h.updated(p, &turn)
	}
	for {
		u := session.Until{InputWait: !waiting, Seen: seen}
		deadline = time.Time{}
		if pending {
			deadline = last.Add(h.interval)
		} else {
			u.Next = true // wake on the next output
		}
		o := p.Await(ctx, deadline, u)
		seen = &o.Reads
		switch o.Reason {
		case session.ReasonCancelled:
			return
		case session.ReasonExited:
			tell()
			return
		case session.ReasonInputWait:
			waiting = true
			tell()
		case session.ReasonDeadline:
			tell()
		case session.ReasonOutput:
			waiting = false
			if now().Sub(last) >= h.interval {
				tell()
			} else {
				pending = true
			}
		}
	}
}
