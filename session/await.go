package session

import (
	"context"
	"regexp"
	"time"
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
	// Detached ends the wait when the command exited and its output is
	// drained while processes it started still run (`cmd &`): what it
	// runs in the background is managed until it ends.
	Detached bool
}

// Outcome says why a wait returned, with what it found.
type Outcome struct {
	Reason Reason
	Input  InputState // with ReasonInputWait
	// With ReasonPattern: the text the pattern matched and its whole line.
	Matched, Line string
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
	var timeout <-chan time.Time
	if !deadline.IsZero() {
		t := time.NewTimer(time.Until(deadline))
		defer t.Stop()
		timeout = t.C
	}
	var calmC <-chan time.Time
	calm := time.NewTimer(u.Quiet)
	defer calm.Stop()
	if u.Quiet > 0 {
		calmC = calm.C
	}
	var probeC <-chan time.Time
	probeT := time.NewTimer(p.timing.firstProbe)
	defer probeT.Stop()
	if u.InputWait {
		probeC = probeT.C
	}
	backoff := p.timing.firstProbe
	probe := false
	var seen uint64
	scan := lineScan{pos: u.From}
	var out Outcome
	match := func(b []byte) bool {
		loc := u.Pattern.FindIndex(b)
		if loc == nil {
			return false
		}
		out.Matched, out.Line = string(b[loc[0]:loc[1]]), string(b)
		return true
	}
	for {
		p.mu.Lock()
		matched := u.Pattern != nil && scan.scan(p.log, true, match)
		ended := p.lc.ended()
		detached := u.Detached && p.lc.detached
		ch := p.changed
		outputs, last := p.in.outputs, p.in.lastOutput
		p.mu.Unlock()
		switch {
		case matched:
			out.Reason = ReasonPattern
			return out
		case ended:
			return Outcome{Reason: ReasonExited}
		case detached:
			return Outcome{Reason: ReasonDetached}
		}
		if u.InputWait {
			probeAfter := noProbe
			if probe {
				probeAfter = p.timing.firstProbe
			}
			if st := p.evalInput(probeAfter); st.Waiting {
				return Outcome{Reason: ReasonInputWait, Input: st}
			}
			now := time.Now()
			if outputs != seen {
				seen, backoff = outputs, p.timing.firstProbe
				resetTimer(probeT, p.timing.firstProbe)
			} else if probe {
				backoff = min(2*backoff, p.timing.maxProbe)
				next := backoff
				// The heuristic turns true quietPeriod after the output.
				if q := last.Add(p.timing.quietPeriod).Sub(now); q > 0 {
					next = min(next, q+time.Millisecond)
				}
				resetTimer(probeT, next)
			}
			probe = false
		}
		select {
		case <-ch:
			if calmC != nil {
				resetTimer(calm, u.Quiet)
			}
		case <-calmC:
			return Outcome{Reason: ReasonQuiet}
		case <-probeC:
			probe = true
		case <-timeout:
			return Outcome{Reason: ReasonDeadline}
		case <-ctx.Done():
			return Outcome{Reason: ReasonCancelled}
		}
	}
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
