package session

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sync"
	"syscall"
	"time"
)

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
		_, due := r.spec.Restart.due(r.attempt, in, m.timing.healthyRun)
		return due
	}
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
	// A restart policy refuses (a run a person allowed once) leaves the
	// process running.
	if _, err := m.prepare(r.spec); err != nil {
		return nil, err
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

// History returns the restart history of a process's name (zero for a
// process without a name).
func (m *Manager) History(p *Process) History {
	m.mu.Lock()
	defer m.mu.Unlock()
	ns := m.reg.names[p.Name]
	if p.Name == "" || ns == nil {
		return History{}
	}
	return History{Restarts: ns.restarts, LastExit: ns.last, RestartPending: ns.pending != nil, EvictedRuns: ns.evictedRuns}
}

// StopAllResult is one process's outcome in StopAll.
type StopAllResult struct {
	Process *Process
	StopResult
	Info Info
	Err  error
}

// StopAll cancels every pending crash restart and stops every running
// process concurrently, with ended_by "stop". Processes that ended on their
// own meanwhile are reported gone.
func (m *Manager) StopAll(ctx context.Context, sig syscall.Signal, grace time.Duration) []StopAllResult {
	var running []*Process
	for _, p := range m.List() {
		if m.CancelRestart(p) && p.Ended() {
			// Its crash restart was the only thing left to stop.
			running = append(running, p)
			continue
		}
		if !p.Ended() {
			running = append(running, p)
		}
	}
	results := make([]StopAllResult, len(running))
	var wg sync.WaitGroup
	for i, p := range running {
		wg.Go(func() {
			r := StopAllResult{Process: p}
			if !p.Ended() {
				r.StopResult, r.Err = p.Stop(ctx, sig, grace, EndedByStop)
			}
			if p.Ended() {
				r.Err, r.Gone = nil, true
			}
			r.Info = p.Info()
			results[i] = r
		})
	}
	wg.Wait()
	return results
}
