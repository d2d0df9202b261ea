//go:build unix

package session

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/yieldshell/yieldshell/internal/poll"
)

// A command that fails at once under a restart policy with no delay is
// restarted no faster than the floor.
func TestRestartDelayFloor(t *testing.T) {
	m := newTestManager(t, nil)
	s := named("exit 1", "loop")
	s.Restart = RestartPolicy{MaxRetries: 1e9}
	if _, err := m.Start(t.Context(), s); err != nil {
		t.Fatal(err)
	}
	runs := waitRuns(t, m, "loop", 4)
	for i := 1; i < len(runs); i++ {
		prev, next := runs[i-1].Info(), runs[i].Info()
		if prev.EndedAt.IsZero() {
			continue
		}
		if gap := next.StartedAt.Sub(prev.EndedAt); gap < minRestartDelay {
			t.Errorf("run %d restarted %v after the crash, want at least %v", i, gap, minRestartDelay)
		}
	}
	if d := (RestartPolicy{}).backoff(1e9); d != 0 {
		t.Errorf("backoff of a zero delay: %v", d)
	}
}

// waitRuns waits until name has had at least n runs and returns them,
// oldest first.
func waitRuns(t *testing.T, m *Manager, name string, n int) []*Process {
	t.Helper()
	var runs []*Process
	poll.Until(t, 20*time.Second, fmt.Sprintf("%d runs of %s", n, name), func() bool {
		runs = runs[:0]
		for _, p := range m.List() {
			if p.Name == name {
				runs = append([]*Process{p}, runs...)
			}
		}
		return len(runs) >= n
	})
	return runs
}

// Past runsPerName the oldest ended runs of a name are forgotten and
// counted; other names keep theirs.
func TestRunsKeptPerName(t *testing.T) {
	m := newTestManager(t, nil)
	const total = 14
	var ids []string
	for i := range total {
		p, _, _ := run(t, m, named("echo run", "same"))
		ids = append(ids, p.ID)
		if i < 2 {
			run(t, m, named("true", "other"))
		}
	}
	kept := 0
	for _, p := range m.List() {
		if p.Name == "same" {
			kept++
		}
	}
	if kept != 10 {
		t.Errorf("%d runs of one name kept, want 10", kept)
	}
	for i, id := range ids {
		_, err := m.Get(id)
		if evicted := i < total-10; evicted != errors.Is(err, ErrUnknownProcess) {
			t.Errorf("run %d: Get gave %v, evicted %v", i, err, evicted)
		}
	}
	p, err := m.Get("same")
	if err != nil || p.ID != ids[total-1] {
		t.Fatalf("newest run: %v %v", p, err)
	}
	if h := m.History(p); h.EvictedRuns != total-10 {
		t.Errorf("history %+v, want %d evicted runs", h, total-10)
	}
	if q, err := m.Get("other"); err != nil || m.History(q).EvictedRuns != 0 {
		t.Errorf("other name: %v %+v", err, m.History(q))
	}
}

// Ended runs' output shares one budget: once it is spent, the output of the
// runs that ended first is evicted, and reads say so.
func TestEndedOutputBudget(t *testing.T) {
	for _, tty := range []bool{false, true} {
		t.Run(map[bool]string{false: "pipes", true: "pty"}[tty], func(t *testing.T) { testEndedOutputBudget(t, tty) })
	}
}

func testEndedOutputBudget(t *testing.T, tty bool) {
	{
		m := newTestManager(t, nil) // one Manager at a time: each reaps every child
		m.keep.endedBytes = 1 << 20
		var procs []*Process
		for range 12 {
			// 400 KB each, more than the 256 KiB a log retains.
			p, _, _ := run(t, m, spec("head -c 400000 /dev/zero | tr '\\0' x", tty))
			procs = append(procs, p)
		}
		// The budget is kept once each end was handled, just after the end
		// became visible.
		var held int64
		if !poll.Within(10*time.Second, func() bool {
			held = 0
			for _, p := range procs {
				_, n := p.held()
				held += n
			}
			return held <= m.keep.endedBytes
		}) {
			t.Errorf("tty=%v: ended runs hold %d bytes, budget %d", tty, held, m.keep.endedBytes)
		}
		zero := int64(0)
		first := procs[0].Snapshot(Query{Since: &zero, MaxBytes: 1 << 20, Streams: Both}).Output
		if !first.Evicted || len(first.Stdout) != 0 || procs[0].EvictedBytes() != 400000 {
			t.Errorf("tty=%v: oldest run: evicted %v, %d bytes left, %d evicted", tty, first.Evicted, len(first.Stdout), procs[0].EvictedBytes())
		}
		last := procs[len(procs)-1].Snapshot(Query{MaxBytes: 1 << 20, Streams: Both}).Output
		if got := len(last.Stdout); got != m.cfg.Limits.BufferBytes || strings.Trim(string(last.Stdout), "x") != "" {
			t.Errorf("tty=%v: newest run kept %d bytes, want %d", tty, got, m.cfg.Limits.BufferBytes)
		}
		// An evicted run still answers, with its end.
		if in := procs[0].Info(); in.ExitCode == nil || *in.ExitCode != 0 {
			t.Errorf("tty=%v: oldest run's end lost: %+v", tty, in)
		}
	}
}
