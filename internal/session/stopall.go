package session

import (
	"context"
	"sync"
	"syscall"
	"time"
)

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
