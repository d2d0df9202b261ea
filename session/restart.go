package session

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"syscall"
	"time"
)

// DefaultMaxRestartDelay caps the exponential back-off between crash
// restarts when the policy gives no cap.
const DefaultMaxRestartDelay = 30 * time.Second

// RestartPolicy restarts a process that crashes: it exits with a non-zero
// code, or a signal that neither stop, restart, a timeout nor shutdown sent
// killed it. The n-th restart in a row waits Delay * 2^(n-1), at most
// MaxDelay, and never less than 100 ms.
type RestartPolicy struct {
	MaxRetries int           // 0: never restart
	Delay      time.Duration // before the first restart
	MaxDelay   time.Duration // cap of the back-off; 0 means DefaultMaxRestartDelay
}

// runRecord is what the Manager keeps about one run to start it again.
type runRecord struct {
	spec    Spec
	attempt int // crash restarts in a row that led to this run
	// settled is closed once the run ended and its end was handled; restart
	// is then the crash restart it led to, if any.
	settled chan struct{}
	restart *pendingRestart
}

// pendingRestart is a crash restart waiting for its delay.
type pendingRestart struct {
	cancel chan struct{}
	done   chan struct{} // closed once the restart was tried (or given up)
	next   *Process      // the new run, if it started; read after done
}

var errRestartCancelled = errors.New("restart cancelled")

// Crashed reports whether a run ended in a crash: a non-zero exit code, or
// a signal that nobody at this end sent.
func (in Info) Crashed() bool {
	switch in.EndedBy {
	case EndedBySignal:
		return true
	case EndedByExit:
		return in.ExitCode != nil && *in.ExitCode != 0
	}
	return false
}

// backoff is the delay before the restart that follows attempt earlier ones.
func (rp RestartPolicy) backoff(attempt int) time.Duration {
	limit := rp.MaxDelay
	if limit <= 0 {
		limit = DefaultMaxRestartDelay
	}
	d := max(rp.Delay, 0)
	for range attempt {
		if d >= limit || d == 0 {
			break
		}
		d *= 2
	}
	return min(d, max(limit, rp.Delay))
}

// restartDue says whether the policy of an ended run calls for a crash
// restart, and how many came before it in a row.
func restartDue(r *runRecord, in Info, healthyRun time.Duration) (int, bool) {
	if r == nil || !in.Crashed() {
		return 0, false
	}
	attempt := r.attempt
	if in.Duration >= healthyRun {
		attempt = 0
	}
	return attempt, attempt < r.spec.Restart.MaxRetries
}

// WillRestart reports whether p ended in a crash that its restart policy
// answers with a restart that has not happened yet: pending, or about to be
// scheduled.
func (m *Manager) WillRestart(p *Process) bool {
	in := p.Info()
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.reg.runs[p.ID]
	if r == nil || in.Status == Running || m.shutdown {
		return false
	}
	select {
	case <-r.settled:
		ns := m.reg.names[p.Name]
		return r.restart != nil && ns != nil && ns.pending == r.restart
	default:
		_, due := restartDue(r, in, m.timing.healthyRun)
		return due
	}
}

// afterEnd records how a named run ended and schedules a crash restart when
// its policy calls for one. It runs in the ended process's waiter, without
// the process's lock.
func (m *Manager) afterEnd(p *Process) {
	in := p.Info()
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.reg.runs[p.ID]
	if r == nil {
		return
	}
	defer close(r.settled)
	ns := m.reg.names[p.Name]
	if p.Name == "" || ns == nil {
		return
	}
	ns.last = &Exit{ProcessID: p.ID, Code: in.ExitCode, Signal: in.Signal, EndedBy: in.EndedBy}
	attempt, due := restartDue(r, in, m.timing.healthyRun)
	if !due || m.shutdown || m.reg.byName(p.Name) != p || ns.pending != nil || ns.starting {
		return
	}
	delay := max(r.spec.Restart.backoff(attempt), m.timing.restartFloor)
	pr := &pendingRestart{cancel: make(chan struct{}), done: make(chan struct{})}
	ns.pending = pr
	r.restart = pr
	spec := r.spec
	m.restarts.Go(func() {
		defer close(pr.done)
		t := time.NewTimer(delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-pr.cancel:
			return
		case <-m.quit:
			return
		}
		np, err := m.start(m.ctx, spec, startOpts{restart: true, attempt: attempt + 1, pending: pr})
		if err != nil {
			if !errors.Is(err, errRestartCancelled) {
				m.log.Warn("crash restart failed", "name", spec.Name, "error", err)
			}
			return
		}
		pr.next = np
		m.log.Info("restarted after a crash", "name", spec.Name, "process_id", np.ID, "attempt", attempt+1)
	})
}

// NextRun waits until p, which has ended, has been restarted after a crash
// by its policy, and returns the new run; nil if p is not being restarted
// (or the restart failed or was cancelled), or the deadline passed or ctx
// is done first.
func (m *Manager) NextRun(ctx context.Context, p *Process, deadline time.Time) *Process {
	m.mu.Lock()
	r := m.reg.runs[p.ID]
	m.mu.Unlock()
	if r == nil {
		return nil
	}
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	wait := func(c <-chan struct{}) bool {
		select {
		case <-c:
			return true
		case <-t.C:
		case <-ctx.Done():
		}
		return false
	}
	// r.restart is set before settled is closed.
	if !wait(r.settled) || r.restart == nil || !wait(r.restart.done) {
		return nil
	}
	return r.restart.next
}

// WaitPatternFollowing waits for re in p's output from its first byte and
// follows p through crash restarts: when p crashes and its policy restarts
// it, the wait goes on over the new run's output, all within the one
// deadline. It returns the run it ended on and how many restarts it
// followed.
func (m *Manager) WaitPatternFollowing(ctx context.Context, p *Process, deadline time.Time, re *regexp.Regexp) (*Process, Outcome, int) {
	followed := 0
	for {
		r := p.Await(ctx, deadline, Until{Pattern: re})
		if r.Reason != ReasonExited {
			return p, r, followed
		}
		next := m.NextRun(ctx, p, deadline)
		if next == nil {
			return p, r, followed
		}
		p = next
		followed++
	}
}

// CancelRestart cancels a pending crash restart of p's name and reports
// whether there was one.
func (m *Manager) CancelRestart(p *Process) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.cancelRestartLocked(p.Name)
}

func (m *Manager) cancelRestartLocked(name string) bool {
	ns := m.reg.names[name]
	if name == "" || ns == nil || ns.pending == nil {
		return false
	}
	close(ns.pending.cancel)
	ns.pending = nil
	return true
}

// Restart stops p if it is running (SIGTERM, SIGKILL after grace; ended_by
// "restart") and starts its command again as a new run, with the original
// command, cwd, env, terminal size, mode and options, under the same name.
// A pending crash restart of the name is cancelled.
func (m *Manager) Restart(ctx context.Context, p *Process, grace time.Duration) (*Process, error) {
	m.mu.Lock()
	r := m.reg.runs[p.ID]
	m.cancelRestartLocked(p.Name)
	m.mu.Unlock()
	if r == nil {
		return nil, fmt.Errorf("restarting %s: %w", p.ID, ErrUnknownProcess)
	}
	if !p.Ended() {
		res, err := p.Stop(ctx, syscall.SIGTERM, grace, EndedByRestart)
		if err != nil && !errors.Is(err, ErrNotRunning) {
			return nil, fmt.Errorf("restarting %s: %w", p.ID, err)
		}
		if err == nil && !res.Gone {
			return nil, fmt.Errorf("restarting %s: the process group did not end even after SIGKILL", p.ID)
		}
	}
	return m.start(ctx, r.spec, startOpts{restart: true})
}
