package session

import (
	"bytes"
	"slices"
	"time"

	"github.com/yieldshell/yieldshell/screen"
)

// retention bounds what the Manager keeps of runs that ended, so that a
// crash-restart loop or many finished commands cannot grow the server
// without end before purge forgets them.
type retention struct {
	// runsPerName is how many runs of one name are kept: past it the
	// oldest ended runs of the name are forgotten (counted in the name's
	// History as evicted runs).
	runsPerName int
	// endedBytes is the memory that all ended runs' output (their logs and
	// unrendered terminal output) may hold together: past it the output of
	// the runs that ended first is evicted, as a full log evicts its
	// oldest bytes.
	endedBytes int64
}

func defaultRetention() retention {
	return retention{runsPerName: 10, endedBytes: 32 << 20}
}

// trimRuns forgets the oldest ended runs of name beyond keep and returns
// them, for the caller to close without the Manager's lock. A run whose end
// is still being handled is kept until it is settled.
func (r *registry) trimRuns(name string, keep int) []*Process {
	if name == "" || keep <= 0 {
		return nil
	}
	n := 0
	for _, p := range r.order {
		if p.Name == name {
			n++
		}
	}
	var gone []*Process
	for _, p := range r.order {
		if n <= keep {
			break
		}
		if p.Name != name || !r.settled(p) {
			continue
		}
		gone = append(gone, p)
		n--
	}
	if len(gone) == 0 {
		return nil
	}
	r.order = slices.DeleteFunc(r.order, func(p *Process) bool { return slices.Contains(gone, p) })
	for _, p := range gone {
		delete(r.procs, p.ID)
		r.forget(p)
	}
	r.uncountForgotten()
	if ns := r.names[name]; ns != nil {
		ns.evictedRuns += len(gone)
	}
	return gone
}

// endedOutput is the Manager's running count of the memory that ended
// runs' output holds, kept within retention.endedBytes. An end measures
// its own run, and the runs whose output was still open at their end;
// measuring every kept run at each end made n ends cost n² (issue 38).
// Guarded by the Manager's lock, as the registry is.
type endedOutput struct {
	total int64
	runs  []endedRun // the kept ended runs that hold output, in end order
	open  int        // runs whose output had not reached EOF when last measured
}

// endedRun is one ended run's output as counted.
type endedRun struct {
	p       *Process
	endedAt int64 // Unix nanoseconds
	bytes   int64
	// open: output may still come (something outside the tree holds the
	// terminal or pipe), so it is measured again at each end.
	open bool
}

// countEnded counts the output of p, which just ended, and evicts the
// output of the runs that ended first until what ended runs hold fits
// limit (none if limit is not positive).
func (r *registry) countEnded(p *Process, limit int64) {
	if r.procs[p.ID] != p {
		return // never registered (shutdown), or already forgotten
	}
	e := &r.ended
	in, n, open := p.held()
	if in.Status != Running && (n > 0 || open) {
		run := endedRun{p: p, endedAt: in.EndedAt.UnixNano(), bytes: n, open: open}
		i := len(e.runs)
		for i > 0 && e.runs[i-1].endedAt > run.endedAt {
			i--
		}
		e.runs = slices.Insert(e.runs, i, run)
		e.total += n
		if open {
			e.open++
		}
	}
	if e.open > 0 {
		e.remeasure()
	}
	if limit > 0 && e.total > limit {
		e.evict(limit)
	}
}

// outputClosed measures again, once the output of a run that had ended
// reached EOF, the runs whose output was open at their end, and fits what
// they hold to the budget: output that came after the end is counted
// though no run ends after it.
func (m *Manager) outputClosed() {
	m.mu.Lock()
	defer m.mu.Unlock()
	e := &m.reg.ended
	if e.open == 0 {
		return
	}
	e.remeasure()
	if limit := m.keep.endedBytes; limit > 0 && e.total > limit {
		e.evict(limit)
	}
}

// remeasure measures again the runs whose output was still open.
func (e *endedOutput) remeasure() {
	for i := range e.runs {
		run := &e.runs[i]
		if !run.open {
			continue
		}
		_, n, open := run.p.held()
		e.total += n - run.bytes
		run.bytes, run.open = n, open
		if !open {
			e.open--
		}
	}
}

// evict drops the output of the runs that ended first until the total
// fits limit. They leave the count, but for those whose output is still
// open, which are counted again from nothing.
func (e *endedOutput) evict(limit int64) {
	k := 0
	for ; k < len(e.runs) && e.total > limit; k++ {
		run := &e.runs[k]
		run.p.dropOutput()
		e.total -= run.bytes
		run.bytes = 0
	}
	keep := k // runs[keep:k] are the evicted runs still open, in order
	for i := k - 1; i >= 0; i-- {
		if e.runs[i].open {
			keep--
			e.runs[keep] = e.runs[i]
		}
	}
	clear(e.runs[:keep]) // the array's head must not keep them alive
	e.runs = e.runs[keep:]
}

// uncountForgotten takes the runs the registry forgot out of the count.
func (r *registry) uncountForgotten() {
	e := &r.ended
	e.runs = slices.DeleteFunc(e.runs, func(run endedRun) bool {
		if r.procs[run.p.ID] == run.p {
			return false
		}
		e.total -= run.bytes
		if run.open {
			e.open--
		}
		return true
	})
	if cap(e.runs) > 2*len(e.runs)+64 {
		// A cleanup's room is given back: the count costs what is kept.
		e.runs = append([]endedRun(nil), e.runs...)
	}
}

// held returns p's summary, the memory its output holds and whether more
// may come (its output has not reached EOF). The memory is the log's
// ring, the terminal output not yet rendered, the rendered screen and the
// URL scan's unfinished lines. A process whose output is complete is
// trimmed first and keeps its screen frozen (a snapshot, not the emulator:
// issue 30 item 5), so a finished process's screen costs its text, and
// counts in endedBytes.
func (p *Process) held() (_ Info, _ int64, open bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	open = !p.lc.ended() || p.streams.open > 0
	if !open {
		p.trimEndedLocked()
	}
	n := p.log.Held() + cap(p.out.urls.scan.Partial[0]) + cap(p.out.urls.scan.Partial[1])
	if v := p.out.view; v != nil {
		n += v.heldBytes()
	}
	return p.infoLocked(), int64(n), open
}

// trimEndedLocked trims what a process whose output is complete keeps for
// output that will not come: the screen is frozen, the cleaner and the
// reply queue released, the log's ring cut to its bytes, a pass-through
// redactor dropped. 10,000
// finished execs then hold under 50 MB (TestFinishedExecRecordsStaySmall).
// Called with p.mu held; once is enough, again is cheap.
func (p *Process) trimEndedLocked() {
	o := &p.out
	if o.view != nil && !o.view.ended {
		o.view.freeze()
		if o.view.frozen == nil && len(o.view.pending) > 0 {
			o.view.pending = bytes.Clone(o.view.pending) // its capacity grew for more
		}
	}
	o.releaseEnded()
	p.log.Trim()
	if o.redactor != nil && len(o.secrets.all()) == 0 {
		o.redactor = nil // Write and Flush pass through on nil
	}
}

// dropOutput evicts all of an ended process's retained output, as a full
// log evicts its oldest bytes: reads report it evicted, EvictedBytes
// counts it, and the screen, if asked for, starts blank.
func (p *Process) dropOutput() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.log.Drop()
	p.out.urls.scan.Partial = [2][]byte{}
	if v := p.out.view; v != nil {
		v.pending, v.lost, v.scr = nil, false, nil
		// An ended process's screen is not rendered again: it answers
		// blank, marked as having lost what it showed.
		v.frozen = &screen.Snapshot{Cols: v.cols, Rows: v.rows, CursorVisible: true, Degraded: true}
	}
}

// purgeInterval is how often the janitor looks for records that ended more
// than age ago: they go at most a tenth of their age (and never more than
// 10 s) late.
func purgeInterval(age time.Duration) time.Duration {
	return min(max(age/10, 10*time.Millisecond), 10*time.Second)
}

// tick calls f every interval until quit is closed.
func tick(quit <-chan struct{}, interval time.Duration, f func()) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			f()
		case <-quit:
			return
		}
	}
}
