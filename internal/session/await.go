package session

import (
	"context"
	"regexp"
	"time"

	"github.com/yieldshell/yieldshell/internal/outlog"
)

// Until says what, besides the end of the process, ends a wait.
type Until struct {
	// InputWait ends the wait when the program waits for input.
	InputWait bool
	// Pattern ends the wait when it matches a line of the clean log at or
	// after position From (0: everything the process printed, so output of
	// its first milliseconds is never missed).
	Pattern *regexp.Regexp
	From    int64
	// Quiet, when set, ends the wait once no state change (output, exit)
	// has happened for that long: the first reaction to a start or an
	// input, without waiting for the end.
	Quiet time.Duration
	// Output ends the wait once the log holds output at or after From.
	Output bool
	// Next ends the wait once the process has read more output than when
	// the wait began (in PTY mode it may still be on the screen only).
	Next bool
	// Seen, with Next, counts from an earlier wait's Outcome.Reads instead
	// of from when this one began: a follower that waits again misses
	// nothing that came in between.
	Seen *uint64
	// Detached ends the wait when the command exited and its output is
	// drained while processes it started still run (`cmd &`): what it
	// runs in the background is managed until it ends.
	Detached bool
	// Ready, with InputWait, ends the wait when the program serves and
	// reads its terminal (a dev server up and idle): ReasonReady.
	Ready bool
	// Answer, when set, makes a wait that ends because the program waits
	// for input take the answer's snapshot (Outcome.Snapshot) under the
	// lock that confirms the verdict: the verdict, the prompt and the
	// output are then of one instant ([Process.After]).
	Answer *Query
}

// Outcome says why a wait returned, with what it found.
type Outcome struct {
	Reason Reason
	Input  InputState // with ReasonInputWait and ReasonReady
	// With ReasonPattern: the text the pattern matched and its whole line.
	Matched, Line string
	// Snapshot is the answer's snapshot, with ReasonInputWait when
	// Until.Answer asked for it; nil otherwise.
	Snapshot *Snapshot
	// Reads counts the process's output reads at the wait's last look
	// (see Until.Seen).
	Reads uint64
}

// After returns the snapshot of an answer after a wait that ended with o:
// the wait's own when it took one (Until.Answer, at an input wait), so that
// the verdict and the output are of the same instant, and otherwise one
// taken now.
func (p *Process) After(o Outcome, q Query) Snapshot {
	if o.Snapshot != nil {
		return *o.Snapshot
	}
	return p.Snapshot(q)
}

// Await is the one blocking primitive behind exec, wait, write and start: it
// returns when the process has ended (exited and its output drained), a
// condition of u holds, the deadline passes, or ctx is done. Every state
// change wakes it; nothing polls, except that with InputWait the kernel is
// asked about the program on a schedule that starts firstProbe after each
// output and backs off while nothing changes.
//
// A pattern is looked for line by line, each byte once: only what was
// appended since the previous wake-up is scanned, a line split across
// chunks is seen whole, and the line still being written is tried as it
// grows. Output that arrived before the end is looked at before the end is
// reported.
func (p *Process) Await(ctx context.Context, deadline time.Time, u Until) Outcome {
	a := newAwaiting(p, deadline, u)
	defer a.stop()
	for {
		changed, out, done := a.check()
		if done {
			out.Reads = a.outputs
			return out
		}
		if u.InputWait {
			if st, snap := a.inputWait(); st.Waiting {
				return Outcome{Reason: ReasonInputWait, Input: st, Snapshot: snap, Reads: a.outputs}
			} else if st.Ready {
				return Outcome{Reason: ReasonReady, Input: st, Snapshot: snap, Reads: a.outputs}
			}
		}
		select {
		case <-changed:
			if a.calmC != nil {
				resetTimer(a.calm, u.Quiet)
			}
		case <-a.calmC:
			return Outcome{Reason: ReasonQuiet, Reads: a.outputs}
		case <-a.probeC:
			a.probe = true
		case <-a.deadlineC:
			return Outcome{Reason: ReasonDeadline, Reads: a.outputs}
		case <-ctx.Done():
			return Outcome{Reason: ReasonCancelled, Reads: a.outputs}
		}
	}
}

// awaiting is the state of one [Process.Await].
type awaiting struct {
	p *Process
	u Until

	deadline, calm, probeT   *time.Timer
	deadlineC, calmC, probeC <-chan time.Time
	probe                    bool          // the probe timer fired: ask the kernel
	backoff                  time.Duration // the probe schedule's current step
	seen                     uint64        // output reads when the schedule last restarted
	outputs                  uint64        // output reads at the newest check
	lastOutput               time.Time     // the newest output or write at the newest check
	scan                     outlog.LineScan
	base                     uint64 // output reads when the wait began
	based                    bool   // base is set
	matched, line            string
}

func newAwaiting(p *Process, deadline time.Time, u Until) *awaiting {
	a := &awaiting{p: p, u: u, backoff: p.timing.firstProbe, scan: outlog.LineScan{Pos: u.From, Unfinished: true}}
	if !deadline.IsZero() {
		a.deadline = time.NewTimer(time.Until(deadline))
		a.deadlineC = a.deadline.C
	}
	if u.Quiet > 0 {
		a.calm = time.NewTimer(u.Quiet)
		a.calmC = a.calm.C
	}
	if u.InputWait {
		a.probeT = time.NewTimer(p.timing.firstProbe)
		a.probeC = a.probeT.C
	}
	return a
}

func (a *awaiting) stop() {
	for _, t := range []*time.Timer{a.deadline, a.calm, a.probeT} {
		if t != nil {
			t.Stop()
		}
	}
}

// check looks at the process once: it reports the outcome if the pattern
// matched, the process ended or the command detached (as asked), and
// otherwise the channel the next state change closes.
func (a *awaiting) check() (<-chan struct{}, Outcome, bool) {
	p := a.p
	p.mu.Lock()
	matched := a.u.Pattern != nil && a.scan.Scan(p.log, a.match)
	if !matched && a.u.Pattern != nil && p.out.pendingMatch(a.u.Pattern, a.scan.Partial[0]) {
		p.out.flush(p.log) // on the screen, not in the log yet: commit it
		matched = a.scan.Scan(p.log, a.match)
	}
	ended := p.lc.ended()
	detached := a.u.Detached && p.lc.detached
	if !a.based {
		a.base, a.based = p.in.outputs, true
		if a.u.Seen != nil {
			a.base = *a.u.Seen
		}
	}
	output := a.u.Output && p.log.End() > a.u.From || a.u.Next && p.in.outputs > a.base
	changed := p.changedLocked()
	a.outputs, a.lastOutput = p.in.outputs, p.in.lastOutput
	if p.in.wrote.At.After(a.lastOutput) {
		// The quiet period counts from a write too (observeLocked).
		a.lastOutput = p.in.wrote.At
	}
	p.mu.Unlock()
	switch {
	case matched:
		return nil, Outcome{Reason: ReasonPattern, Matched: a.matched, Line: a.line}, true
	case ended:
		return nil, Outcome{Reason: ReasonExited}, true
	case detached:
		return nil, Outcome{Reason: ReasonDetached}, true
	case output:
		return nil, Outcome{Reason: ReasonOutput}, true
	}
	return changed, Outcome{}, false
}

// match is the pattern's test of one line.
func (a *awaiting) match(b []byte) bool {
	loc := a.u.Pattern.FindIndex(b)
	if loc == nil {
		return false
	}
	a.matched, a.line = string(b[loc[0]:loc[1]]), string(b)
	return true
}

// inputWait evaluates the input state, asking the kernel only when the
// probe timer fired, and schedules the next probe: firstProbe after new
// output, then doubling up to maxProbe while nothing changes, and never
// later than the moment the heuristic's quiet period ends. With
// Until.Answer a waiting verdict also takes the answer's snapshot, and
// counts only if nothing changed since it was decided (a change wakes the
// wait again).
func (a *awaiting) inputWait() (InputState, *Snapshot) {
	p, t := a.p, a.p.timing
	probeAfter := noProbe
	if a.probe {
		probeAfter = t.firstProbe
	}
	if st, v := p.evalInputView(probeAfter); st.Waiting || st.Ready && a.u.Ready {
		if a.u.Answer == nil {
			return st, nil
		}
		if snap, ok := p.confirmInput(v, st, *a.u.Answer); ok {
			return st, snap
		}
	}
	if a.outputs != a.seen {
		a.seen, a.backoff = a.outputs, t.firstProbe
		resetTimer(a.probeT, t.firstProbe)
	} else if a.probe {
		a.backoff = min(2*a.backoff, t.maxProbe)
		next := a.backoff
		if q := time.Until(a.lastOutput.Add(t.quietPeriod)); q > 0 {
			next = min(next, q+time.Millisecond)
		}
		resetTimer(a.probeT, next)
	}
	a.probe = false
	return InputState{}, nil
}

func resetTimer(t *time.Timer, d time.Duration) {
	t.Stop()
	t.Reset(d)
}

// WaitEnd blocks until the process has ended (exited and its output drained),
// the deadline passes, or ctx is done.
func (p *Process) WaitEnd(ctx context.Context, deadline time.Time) Reason {
	return p.Await(ctx, deadline, Until{}).Reason
}
