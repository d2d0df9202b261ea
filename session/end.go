package session

import (
	"context"
	"sync"
	"syscall"
	"time"

	"github.com/yieldshell/yieldshell/pty"
)

// wait is the one goroutine that follows the process to its end: it reaps
// it (through pty), enforces timeout_ms, escalates to SIGKILL when a stop's
// grace runs out, and drains output. A command is not over while its tree
// lives: after the direct child exits, the end waits for every member of
// its process group and every tagged descendant to be gone, and timeout_ms
// and the escalation keep applying to them meanwhile.
func (p *Process) wait() {
	defer close(p.waiterEnd)
	var timeoutC <-chan time.Time
	if p.timeout > 0 {
		t := time.NewTimer(p.timeout)
		defer t.Stop()
		timeoutC = t.C
	}
	kill := time.NewTimer(time.Hour)
	kill.Stop()
	defer kill.Stop()
	armed := false
	rearm := func() {
		p.mu.Lock()
		at := p.lc.killAt
		p.mu.Unlock()
		if !at.IsZero() {
			kill.Reset(time.Until(at))
			armed = true
		}
	}
	// The tree watcher is started once the direct child has exited and its
	// output is drained; it is stopped and joined before wait returns.
	watchCtx, stopWatch := context.WithCancel(context.Background())
	var watching sync.WaitGroup
	defer func() {
		stopWatch()
		watching.Wait()
	}()
	var treeGone chan struct{}
	var drain <-chan time.Time
	var drainT *time.Timer
	defer func() {
		if drainT != nil {
			drainT.Stop()
		}
	}()
	exited := p.proc.Done()
	eof := p.eof
	var hasExited, drained, eofSeen, goneSeen, watched, redrain bool
	var exitedAt time.Time
	var detachT *time.Timer
	var detachC <-chan time.Time
	defer func() {
		if detachT != nil {
			detachT.Stop()
		}
	}()
	// settle ends the process once the direct child exited, its output is
	// drained (EOF, or the drain grace passed) and nothing of its tree is
	// left; while the tree lives, it waits for it.
	settle := func() {
		if !hasExited || !drained {
			return
		}
		if !goneSeen {
			if treeGone != nil {
				return // the watcher is on it
			}
			if pty.TreeAlive(p.Pid, tagKey, p.tag) {
				// A process dying of the terminal's hang-up (or closing
				// its output on the way out) still counts as alive for an
				// instant: the command counts as detached only once the
				// drain grace since the exit has passed.
				treeGone, watched = make(chan struct{}), true
				watching.Go(func() { p.watchTree(watchCtx, treeGone) })
				detachT = time.NewTimer(max(time.Until(exitedAt.Add(p.timing.drainGrace)), 0))
				detachC = detachT.C
				return
			}
			goneSeen = true
		}
		if !eofSeen && watched && !redrain {
			// The tree ended while the output was still open: the last
			// bytes get the drain grace once more.
			redrain = true
			drainT.Reset(p.timing.drainGrace)
			drain = drainT.C
			drained = false
			return
		}
		p.finish(!eofSeen)
	}
	for {
		select {
		case <-exited:
			exited = nil
			hasExited, exitedAt = true, time.Now()
			p.mu.Lock()
			p.lc.exit = p.proc.Status()
			p.advanceLocked(phaseExited)
			p.mu.Unlock()
			drainT = time.NewTimer(p.timing.drainGrace)
			drain = drainT.C
			if eofSeen {
				drainT.Stop()
				drain = nil
				drained = true
			}
			settle()
		case <-eof:
			eof = nil
			eofSeen = true
			if hasExited {
				drained = true
				drain = nil
				settle()
			}
		case <-drain:
			drain = nil
			drained = true
			settle()
		case <-detachC:
			detachC = nil
			p.mu.Lock()
			p.lc.detached = true
			p.broadcast()
			p.mu.Unlock()
		case <-treeGone:
			treeGone, detachC = nil, nil
			goneSeen = true
			settle()
		case <-timeoutC:
			timeoutC = nil
			if p.beginEnding(EndedByTimeout, p.timing.timeoutGrace) {
				_ = p.signalTree(syscall.SIGTERM) // ESRCH: it is exiting anyway
			}
		case <-p.kick:
			rearm()
		case <-kill.C:
			armed = false
			p.mu.Lock()
			p.lc.killed = true
			p.mu.Unlock()
			_ = p.signalTree(syscall.SIGKILL) // ESRCH: the group is already gone
		case <-p.stopWait:
			return
		}
		p.mu.Lock()
		ended := p.lc.ended()
		p.mu.Unlock()
		if ended && !armed {
			return
		}
	}
}

// watchTree closes gone once no member of the process's group and no
// tagged descendant is left, or returns when ctx is done. It waits on the
// processes themselves, so a long-lived descendant costs nothing.
func (p *Process) watchTree(ctx context.Context, gone chan<- struct{}) {
	for {
		pids := pty.Members(p.Pid, tagKey, p.tag)
		if len(pids) == 0 {
			close(gone)
			return
		}
		if pty.AwaitExit(ctx, pids) != nil && ctx.Err() != nil {
			return
		}
	}
}

// signalTree sends sig to the process group, and to every descendant that
// left the group (setsid, daemons) but still carries the process's tag.
func (p *Process) signalTree(sig syscall.Signal) error {
	err := p.proc.Signal(sig)
	for pid, v := range pty.Tagged(tagKey) {
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
		select {
		case p.kick <- struct{}{}:
		default: // a kick is already pending; the waiter reads killAt anew
		}
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
	if p.releaseSlot != nil {
		p.releaseSlot()
	}
	p.mu.Lock()
	p.out.flush(p.log)
	p.lc.leftOpen = leftOpen
	p.lc.endedAt = time.Now()
	switch p.lc.ending {
	case EndedByStop, EndedByShutdown, EndedByRestart, EndedByTimeout:
	default:
		p.lc.ending = EndedByExit
		if p.lc.exit.Signal != 0 {
			p.lc.ending = EndedBySignal
		}
	}
	p.advanceLocked(phaseEnded)
	p.releaseLocked()
	p.mu.Unlock()
	p.endLife()
	p.out.stopReplies()
	if p.onEnd != nil {
		p.onEnd(p)
	}
}

// Close releases the process's descriptors and joins its goroutines. It
// does not signal the process; call Stop first for that.
func (p *Process) Close() {
	p.closeOnce.Do(func() {
		close(p.stopWait)
		p.endLife()
		_ = p.proc.Close() // unblocks the readers
		p.readers.Wait()
		p.out.stopReplies()
		<-p.waiterEnd
		p.finish(true)
	})
}
