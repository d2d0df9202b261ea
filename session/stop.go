package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
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
	if !p.beginEnding(by, grace) {
		return StopResult{}, p.notRunning()
	}
	if err := p.signalTree(sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return StopResult{}, fmt.Errorf("sending %s: %w", SignalName(sig), err)
	}
	p.hangUpIgnorers(sig) // an interactive shell ignores SIGTERM (signal.go)
	o := p.awaitEnd(ctx, sig, time.Now().Add(max(grace, 0)+p.timing.killWait))
	if o.Reason == ReasonCancelled {
		return StopResult{}, ctx.Err()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return StopResult{Gone: o.Reason == ReasonExited, Killed: p.lc.killed}, nil
}

// hangUpIgnorers ends, the way closing a terminal does, the shells of a
// PTY-mode process's terminal session that ignore sig: an interactive
// shell ignores SIGTERM but leaves on SIGHUP (hanging up its own jobs), so
// it gets SIGHUP and SIGCONT instead of sitting out the grace period until
// SIGKILL. Other programs that ignore sig, and shells that ignore SIGHUP
// too, still get SIGKILL after the grace.
func (p *Process) hangUpIgnorers(sig syscall.Signal) {
	if !p.TTY || sig == syscall.SIGHUP || sig == syscall.SIGKILL {
		return
	}
	for _, pid := range sessionMembers(p.Pid) {
		if isShell(pid) && ignores(pid, sig) {
			_ = syscall.Kill(pid, syscall.SIGHUP)  // ESRCH: gone meanwhile
			_ = syscall.Kill(pid, syscall.SIGCONT) // a stopped shell must see it
		}
	}
}

// sessionMembers lists the processes of session sid (the PTY's session,
// led by the process's direct child).
func sessionMembers(sid int) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if s, err := unix.Getsid(pid); err == nil && s == sid {
			pids = append(pids, pid)
		}
	}
	return pids
}

// ignores reports whether process pid ignores sig (SigIgn in
// /proc/PID/status).
func ignores(pid int, sig syscall.Signal) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return false
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "SigIgn:"); ok {
			mask, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			return err == nil && mask&(1<<(uint(sig)-1)) != 0
		}
	}
	return false
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
			p.hangUpIgnorers(sig)
		}
	}
	return p.Await(ctx, deadline, Until{})
}

// isShell reports whether process pid runs a shell (by its command name).
func isShell(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	if err != nil {
		return false
	}
	switch strings.TrimSpace(string(b)) {
	case "bash", "zsh", "fish", "sh", "dash", "ksh", "mksh", "tcsh", "csh", "busybox":
		return true
	}
	return false
}
