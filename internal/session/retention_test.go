//go:build unix

package session

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/yieldshell/yieldshell/internal/outlog"
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
				_, n, _ := p.held()
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

// keepEnded registers n processes that ended, each holding out in its
// log, as m's ended runs, without a program or goroutines behind them;
// they leave the registry when the test ends, before m shuts down.
func keepEnded(t testing.TB, m *Manager, n int, out string) []*Process {
	t.Helper()
	ps := make([]*Process, n)
	at := time.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := range ps {
		p := &Process{ID: newID(), log: outlog.New(1 << 10)}
		p.log.Append(Stdout, []byte(out))
		p.lc.phase, p.lc.ending, p.lc.endedAt = phaseEnded, EndedByExit, at.Add(time.Duration(i))
		m.reg.procs[p.ID] = p
		m.reg.order = append(m.reg.order, p)
		ps[i] = p
	}
	t.Cleanup(func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		for _, p := range ps {
			delete(m.reg.procs, p.ID)
		}
		m.reg.order = slices.DeleteFunc(m.reg.order, func(p *Process) bool { return slices.Contains(ps, p) })
	})
	return ps
}

// endBare ends p, kept by keepEnded, as the end hook does.
func endBare(m *Manager, p *Process) {
	p.mu.Lock()
	final := p.infoLocked()
	p.mu.Unlock()
	m.ended(p, final)
}

// The end of one run does not measure every kept run again: with one of
// the older runs locked (as a busy reader would hold it), the end still
// completes. Measuring them all made n ends cost n².
func TestEndMeasuresOnlyItsRun(t *testing.T) {
	m := newTestManager(t, nil)
	ps := keepEnded(t, m, 100, "old output\n")
	for _, p := range ps[:99] {
		endBare(m, p)
	}
	busy := ps[10]
	busy.mu.Lock()
	done := make(chan struct{})
	go func() {
		defer close(done)
		endBare(m, ps[99])
	}()
	select {
	case <-done:
		busy.mu.Unlock()
	case <-time.After(10 * time.Second):
		busy.mu.Unlock()
		<-done
		t.Fatal("an end waited on another run's lock: it measures every kept run")
	}
}

// The running count follows ends, evictions and forgetting: the output
// of the runs that ended first goes once the budget is spent, and a
// forgotten run leaves the count.
func TestEndedOutputCount(t *testing.T) {
	m := newTestManager(t, nil)
	out := strings.Repeat("x", 100)
	ps := keepEnded(t, m, 10, out)
	m.keep.endedBytes = 450
	for _, p := range ps {
		endBare(m, p)
	}
	for i, p := range ps {
		evicted := p.EvictedBytes() > 0
		if want := i < 6; evicted != want {
			t.Errorf("run %d: evicted %v, want %v", i, evicted, want)
		}
	}
	m.mu.Lock()
	total, runs := m.reg.ended.total, len(m.reg.ended.runs)
	m.mu.Unlock()
	if total != 400 || runs != 4 {
		t.Errorf("after the ends: %d bytes in %d runs counted, want 400 in 4", total, runs)
	}
	// Forgotten as Cleanup and trimRuns forget (they also close them,
	// which a process without goroutines cannot be).
	m.mu.Lock()
	for _, p := range ps[6:8] {
		delete(m.reg.procs, p.ID)
	}
	m.reg.uncountForgotten()
	total, runs = m.reg.ended.total, len(m.reg.ended.runs)
	m.mu.Unlock()
	if total != 200 || runs != 2 {
		t.Errorf("after forgetting two: %d bytes in %d runs counted, want 200 in 2", total, runs)
	}

	// A run whose output is still open at its end (something outside its
	// tree holds the terminal) is measured again at each end until it
	// closes (its log's ring counts whole until then).
	m.keep.endedBytes = 1 << 20
	late := keepEnded(t, m, 2, out)
	late[0].streams.open = 1
	endBare(m, late[0])
	late[0].mu.Lock()
	late[0].log.Append(Stdout, []byte(out))
	late[0].streams.open = 0
	late[0].mu.Unlock()
	endBare(m, late[1])
	m.mu.Lock()
	total, open := m.reg.ended.total, m.reg.ended.open
	m.mu.Unlock()
	if total != 200+300 || open != 0 {
		t.Errorf("after a late output: %d bytes counted, %d open, want 500 and none open", total, open)
	}
}

// Output that comes after a run's end (something outside its tree held
// the terminal) is counted once it closes, though no run ends after it:
// the runs that ended first make room for it.
func TestLateOutputCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, e, _ := fakeManager(t, nil, nil)
		m.keep.endedBytes = 64 << 10
		chunk := strings.Repeat("x", 1023) + "\n"
		old, f := startFake(t, m, e, spec("old", false))
		for range 40 {
			f.print(chunk)
		}
		f.exit(0)
		late, g := startFake(t, m, e, spec("late", false))
		g.holdOutput()
		g.exit(0)
		for _, p := range []*Process{old, late} {
			if r := p.WaitEnd(t.Context(), time.Now().Add(time.Minute)); r != ReasonExited {
				t.Fatalf("WaitEnd: %s", r)
			}
		}
		synctest.Wait() // the ends are handled
		for range 40 {
			g.print(chunk)
		}
		g.releaseOutput()
		synctest.Wait()
		if old.EvictedBytes() == 0 {
			t.Errorf("the older run kept its output: 80 KiB ended output held, budget 64 KiB")
		}
		zero := int64(0)
		if got := len(late.Snapshot(Query{Since: &zero, MaxBytes: 1 << 20, Streams: Both}).Output.Stdout); got != 40*len(chunk) {
			t.Errorf("the late run kept %d bytes, want %d", got, 40*len(chunk))
		}
	})
}

// BenchmarkEndedBookkeeping is the Manager's work at one end with 100 and
// with 10,000 ended runs kept: the same when the count is incremental
// (ns/op), growing with the runs kept when each end measures them all.
// The ends are those of 1,000 runs, newer than the kept ones, forgotten
// and registered again (untimed) after each 1,000 ends.
func BenchmarkEndedBookkeeping(b *testing.B) {
	for _, kept := range []int{100, 10000} {
		b.Run(fmt.Sprintf("kept=%d", kept), func(b *testing.B) {
			m := newTestManager(b, nil)
			for _, p := range keepEnded(b, m, kept, "run output\n") {
				endBare(m, p)
			}
			spare := keepEnded(b, m, 1000, "run output\n")
			b.ResetTimer()
			for i := range b.N {
				j := i % len(spare)
				if j == 0 && i > 0 {
					b.StopTimer()
					m.mu.Lock()
					for _, p := range spare {
						delete(m.reg.procs, p.ID)
					}
					m.reg.uncountForgotten()
					for _, p := range spare {
						m.reg.procs[p.ID] = p
					}
					m.mu.Unlock()
					b.StartTimer()
				}
				endBare(m, spare[j])
			}
		})
	}
}

// Asking an ended process for its URLs keeps nothing of its unfinished
// last line (what it kept would grow after the ended runs' count, which
// then held more than its budget: TestEndedOutputBudget, 1 in 15 runs),
// and a URL on that line is found: the line is as finished as it will be.
func TestURLsOfEndedOutputKeepNothing(t *testing.T) {
	m := newTestManager(t, nil)
	p, _, _ := run(t, m, spec("head -c 100000 /dev/zero | tr '\\0' x; printf ' see http://example.test/end'", false))
	_, before, open := p.held()
	if open {
		t.Fatal("output still open after the end")
	}
	if got := p.URLs(); !slices.Contains(got, "http://example.test/end") {
		t.Errorf("URLs %q, want the one on the unfinished last line", got)
	}
	if _, after, _ := p.held(); after != before {
		t.Errorf("held %d bytes before asking for URLs, %d after", before, after)
	}
}
