package session

import "testing"

// The phase only moves forward, and every move wakes the waiters.
func TestPhaseOnlyMovesForward(t *testing.T) {
	p := &Process{changed: make(chan struct{})}
	steps := []struct {
		to   phase
		want bool
	}{
		{phaseExited, true},
		{phaseRunning, false},
		{phaseExited, false},
		{phaseEnded, true},
		{phaseFinishing, false},
	}
	for _, s := range steps {
		ch := p.changed
		if got := p.advanceLocked(s.to); got != s.want {
			t.Fatalf("advance to %s from %s = %v, want %v", s.to, p.lc.phase, got, s.want)
		}
		select {
		case <-ch:
			if !s.want {
				t.Fatalf("a refused move to %s woke the waiters", s.to)
			}
		default:
			if s.want {
				t.Fatalf("the move to %s did not wake the waiters", s.to)
			}
		}
	}
	if p.lc.status() != Completed {
		t.Errorf("status after an end nobody caused = %s, want %s", p.lc.status(), Completed)
	}
}
