package session

import (
	"context"
	"sync"
	"syscall"
	"time"
)

// wait is the one goroutine that follows the process to its end: it reaps
// it (through pty), enforces timeout_ms, escalates to SIGKILL when a stop's
// grace runs out, and drains output. A command is not over while its tree
// lives: after the direct child exits, the end waits for every member of
// its process group and every tagged descendant to be gone, and timeout_ms
// and the escalation keep applying to them meanwhile.
func (p *Process) wait() {
	defer close(p.w.done)
	var timeoutC <-chan time.Time
	if p.w.timeout > 0 {
		t := time.NewTimer(p.w.timeout)
		defer t.Stop()
		timeoutC = t.C
	}
	e := newEndWatch(p)
	defer e.close()
	exited := p.engine().Done()
	for {
		select {
		case <-exited:
			exited = nil
			e.exited()
		case <-e.drainC:
			e.drainTimedOut()
		case <-e.detachC:
			e.detachC = nil
			e.detach()
		case <-e.treeGone:
			e.treeGone, e.detachC, e.goneSeen = nil, nil, true
			e.settle()
		case <-timeoutC:
			timeoutC = nil
			if p.beginEnding(EndedByTimeout, p.timing.timeoutGrace) {
				_ = p.engine().SignalTree(syscall.SIGTERM, tagKey, p.tag) // ESRCH: it is exiting anyway
			}
		case <-p.w.kick:
			if e.kicked() {
				return // Close
			}
		case <-e.kill.C:
			e.killTree()
		}
		if p.Ended() && !e.armed {
			return
		}
	}
}

// endWatch is what [Process.wait] knows of the end so far. Only its
// goroutine uses it.
type endWatch struct {
	p       *Process
	kill    *time.Timer // a stop's or timeout's SIGKILL
	armed   bool        // kill is set
	armedAt time.Time   // the kill time kill was last set to

	// The direct child exited (at exitedAt); its output is drained: EOF,
	// or the drain grace passed.
	hasExited, drained bool
	exitedAt           time.Time
	drainT             *time.Timer // made at the exit
	drainC             <-chan time.Time
	eofSeen            bool // every output stream reached EOF
	redrain            bool // the drain grace was given again after the tree ended

	// The tree watcher is started once the direct child has exited and
	// its output is drained, if anything of its tree lives.
	watching  sync.WaitGroup
	stopWatch context.CancelFunc
	treeGone  chan struct{} // closed by the watcher
	watched   bool          // the watcher was started
	goneSeen  bool          // nothing of the tree is left
	detachT   *time.Timer   // the command counts as detached when it fires
	detachC   <-chan time.Time
}

func newEndWatch(p *Process) *endWatch {
	e := &endWatch{p: p, kill: time.NewTimer(time.Hour), stopWatch: func() {}}
	e.kill.Stop()
	return e
}

// close stops the timers and joins the tree watcher.
func (e *endWatch) close() {
	e.stopWatch()
	e.watching.Wait()
	for _, t := range []*time.Timer{e.kill, e.drainT, e.detachT} {
		if t != nil {
			t.Stop()
		}
	}
}

// exited records the direct child's exit and starts the drain grace,
// unless the output already reached EOF.
func (e *endWatch) exited() {
	p := e.p
	e.hasExited, e.exitedAt = true, time.Now()
	p.mu.Lock()
	p.lc.exit = p.engine().Status()
	p.advanceLocked(phaseExited)
	p.mu.Unlock()
	e.drainT = time.NewTimer(p.timing.drainGrace)
	e.drainC = e.drainT.C
	if e.eofSeen {
		e.drainT.Stop()
		e.drainC, e.drained = nil, true
	}
	e.settle()
}

// maxDrainBehind bounds, as a multiple of the drain grace, how long the
// drain waits for a reader that is behind.
const maxDrainBehind = 20

// drainTimedOut ends the drain grace, unless output waits for a reader
// of ours (a loaded machine has not scheduled it since the child wrote):
// then what the command printed is not lost to its answer, for up to
// maxDrainBehind graces since the exit. What a process outside the tree
// keeps writing does not wait for it longer than that.
func (e *endWatch) drainTimedOut() {
	p := e.p
	grace := p.timing.drainGrace
	behind := p.engine().Pending() || p.in.inFlight.Load() > 0
	if behind && time.Since(e.exitedAt) < maxDrainBehind*grace {
		e.drainT.Reset(grace)
		return
	}
	e.drainC, e.drained = nil, true
	e.settle()
}

// eof records that every output stream reached EOF.
func (e *endWatch) eof() {
	e.eofSeen = true
	if e.hasExited {
		e.drainC, e.drained = nil, true
		e.settle()
	}
}

// settle ends the process once the direct child exited, its output is
// drained (EOF, or the drain grace passed) and nothing of its tree is
// left; while the tree lives, it has it watched.
func (e *endWatch) settle() {
	p := e.p
	if !e.hasExited || !e.drained {
		return
	}
	if !e.goneSeen {
		if e.treeGone != nil {
			return // the watcher is on it
		}
		if p.engine().TreeAlive(tagKey, p.tag) {
			e.watchTree()
			return
		}
		e.goneSeen = true
	}
	if !e.eofSeen && e.watched && !e.redrain {
		// The tree ended while the output was still open: the last bytes
		// get the drain grace once more.
		e.redrain, e.drained = true, false
		e.drainT.Reset(p.timing.drainGrace)
		e.drainC = e.drainT.C
		return
	}
	p.finish(!e.eofSeen)
}

// watchTree starts the watcher that reports when nothing of the tree is
// left, and the timer after which the command counts as detached.
func (e *endWatch) watchTree() {
	p := e.p
	var ctx context.Context
	ctx, e.stopWatch = context.WithCancel(context.Background())
	gone := make(chan struct{})
	e.treeGone, e.watched = gone, true
	e.watching.Go(func() {
		if p.engine().AwaitTree(ctx, tagKey, p.tag) == nil {
			close(gone)
		}
	})
	// A process dying of the terminal's hang-up (or closing its output on
	// the way out) still counts as alive for an instant: the command counts
	// as detached only once the drain grace since the exit has passed.
	e.detachT = time.NewTimer(max(time.Until(e.exitedAt.Add(p.timing.drainGrace)), 0))
	e.detachC = e.detachT.C
}

// detach marks the command detached: its direct child is gone and its
// output drained, but what it started runs on.
func (e *endWatch) detach() {
	p := e.p
	p.mu.Lock()
	p.lc.detached = true
	p.broadcast()
	p.mu.Unlock()
}

// kicked reads what a kick tells: that Close releases the waiter (it
// reports true), that every output stream reached EOF, or that the newest
// beginEnding recorded a new kill time, which the SIGKILL timer is set to.
func (e *endWatch) kicked() (closing bool) {
	p := e.p
	p.mu.Lock()
	closing, eof, at := p.w.closing, p.streams.open == 0, p.lc.killAt
	p.mu.Unlock()
	if closing {
		return true
	}
	if eof && !e.eofSeen {
		e.eof()
	}
	if !at.IsZero() && !at.Equal(e.armedAt) {
		e.kill.Reset(time.Until(at))
		e.armed, e.armedAt = true, at
	}
	return false
}

// killTree sends SIGKILL to the tree when a stop's or timeout's grace ran
// out.
func (e *endWatch) killTree() {
	p := e.p
	e.armed = false
	p.mu.Lock()
	p.lc.killed = true
	p.mu.Unlock()
	_ = p.engine().SignalTree(syscall.SIGKILL, tagKey, p.tag) // ESRCH: the group is already gone
}

// beginEnding records who is ending the process (the first caller wins) and
// when the group gets SIGKILL if it is still there. It reports false if the
// process already ended.
func (p *Process) beginEnding(by Ending, grace time.Duration) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.lc.gone() {
		return false
	}
	if p.lc.ending == "" {
		p.lc.ending = by
	}
	at := time.Now().Add(max(grace, 0))
	if p.lc.killAt.IsZero() || at.Before(p.lc.killAt) {
		p.lc.killAt = at
		p.w.wake()
	}
	return true
}

// finish makes the status final.
func (p *Process) finish(leftOpen bool) {
	p.mu.Lock()
	if !p.advanceLocked(phaseFinishing) {
		p.mu.Unlock()
		return
	}
	p.mu.Unlock()
	// The slot under the process limit is free before anyone can see the
	// end: an exec right after a stop must not be refused for it.
	if p.hooks.releaseSlot != nil {
		p.hooks.releaseSlot()
	}
	p.mu.Lock()
	p.out.flush(p.log)
	p.lc.leftOpen = leftOpen
	p.lc.endedAt = time.Now()
	switch p.lc.ending {
	case EndedByStop, EndedByShutdown, EndedByRestart, EndedByTimeout, EndedByInput:
	default:
		p.lc.ending = EndedByExit
		if p.lc.exit.Signal != 0 {
			p.lc.ending = EndedBySignal
		}
	}
	p.advanceLocked(phaseEnded)
	final := p.infoLocked()
	closeEngine := p.releaseLocked()
	p.mu.Unlock()
	closeEngine()
	p.endLife()
	p.stopReplies()
	if p.hooks.onEnd != nil {
		p.hooks.onEnd(p, final)
	}
	// Called once: what they hold (the Manager's bookkeeping of the
	// start) is not kept with the record.
	p.hooks = endHooks{}
}

// stopReplies waits for the reply writer, which stops when the process's
// life ends. Called without the Process's lock; the queue is taken under
// it, as the end's release drops it (pipeline.releaseEnded).
func (p *Process) stopReplies() {
	p.mu.Lock()
	q := p.out.replies
	p.mu.Unlock()
	if q != nil {
		q.wait()
	}
}

// Close releases the process's descriptors and joins its goroutines. It
// does not signal the process; call Stop first for that.
func (p *Process) Close() {
	p.closing.Do(func() {
		p.mu.Lock()
		p.w.closing = true
		p.mu.Unlock()
		p.w.wake()
		p.endLife()
		_ = p.engine().Close() // unblocks the readers
		p.streams.readers.Wait()
		p.stopReplies()
		<-p.w.done
		p.finish(true)
		p.sandbox.close()
	})
}
