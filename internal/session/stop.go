package session

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"

	"github.com/yieldshell/yieldshell/pty"
)

// StopResult is the outcome of Stop.
type StopResult struct {
	Gone   bool // the process has been reaped
	Killed bool // SIGKILL was needed
}

// Stop sends sig to the process group and to its tagged descendants, and
// SIGKILL to what is still there after grace. It also works after the
// command itself exited, while what it started runs on. It returns once the
// whole tree is gone or, failing that, shortly after the SIGKILL. by
// records who stops it.
func (p *Process) Stop(ctx context.Context, sig syscall.Signal, grace time.Duration, by Ending) (StopResult, error) {
	// The agent's stop and restart wait for the person, as its writes do;
	// a timeout and shutdown do not.
	if (by == EndedByStop || by == EndedByRestart) && p.Held() {
		return StopResult{}, ErrHeldSignal
	}
	if !p.beginEnding(by, grace) {
		return StopResult{}, p.notRunning()
	}
	if err := p.engine().SignalTree(sig, tagKey, p.tag); err != nil && !errors.Is(err, syscall.ESRCH) {
		return StopResult{}, fmt.Errorf("sending %s: %w", SignalName(sig), err)
	}
	p.engine().HangUpIgnorers(sig) // an interactive shell ignores SIGTERM
	o := p.awaitEnd(ctx, sig, time.Now().Add(max(grace, 0)+p.timing.killWait))
	if o.Reason == ReasonCancelled {
		return StopResult{}, ctx.Err()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return StopResult{Gone: o.Reason == ReasonExited, Killed: p.lc.killed}, nil
}

// hangUpRetry is how long a stop waits before it hangs up again the
// session members that still ignore its signal: a shell caught in its
// start-up can miss the first SIGHUP.
const hangUpRetry = 250 * time.Millisecond

// awaitEnd waits for the end of a process that was sent sig, until
// deadline; in PTY mode it hangs up once more, after hangUpRetry, whatever
// of the terminal's session still ignores sig.
func (p *Process) awaitEnd(ctx context.Context, sig syscall.Signal, deadline time.Time) Outcome {
	if p.TTY && sig != syscall.SIGHUP && sig != syscall.SIGKILL {
		if retry := time.Now().Add(hangUpRetry); retry.Before(deadline) {
			if o := p.Await(ctx, retry, Until{}); o.Reason != ReasonDeadline {
				return o
			}
			p.engine().HangUpIgnorers(sig)
		}
	}
	return p.Await(ctx, deadline, Until{})
}

// ParseSignal accepts a signal name in any case, with or without the SIG
// prefix, or its number ([pty.ParseSignal]).
func ParseSignal(name string) (syscall.Signal, error) { return pty.ParseSignal(name) }

// SignalName returns the conventional name of s, "SIG<n>" if it has none
// ([pty.SignalName]).
func SignalName(s syscall.Signal) string { return pty.SignalName(s) }

// StopForInput ends a process that waits for input under exec's on_input
// "fail": like stop, but recorded as ended by its input, so its status is
// failed.
func (p *Process) StopForInput(ctx context.Context, grace time.Duration) (StopResult, error) {
	return p.Stop(ctx, syscall.SIGTERM, grace, EndedByInput)
}
