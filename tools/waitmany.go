package tools

import (
	"context"
	"fmt"
	"regexp"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/mcptool"
	"github.com/yieldshell/yieldshell/internal/session"
	"github.com/yieldshell/yieldshell/internal/wire"
)

// maxWaitMany bounds how many processes one wait watches.
const maxWaitMany = 32

// waitMany waits on several processes at once: the first of them to end,
// wait for input or match until wakes it, and the answer is about that
// one (its output since the since_seqs entry under its id or name, if
// any), with waited listing all of them.
func (h *handlers) waitMany(ctx context.Context, req *mcp.CallToolRequest, in wire.WaitIn, d time.Duration) (*mcp.CallToolResult, wire.OutputOut, error) {
	if in.ProcessID != "" || in.SinceSeq != nil {
		return mcptool.Error(wire.OutputOut{ProcessID: in.ProcessID, Error: "pass either process_id (with since_seq) or process_ids (with since_seqs), not both"})
	}
	if len(in.ProcessIDs) > maxWaitMany {
		return mcptool.Error(wire.OutputOut{Error: fmt.Sprintf("process_ids lists %d processes; at most %d", len(in.ProcessIDs), maxWaitMany)})
	}
	procs := make([]*session.Process, 0, len(in.ProcessIDs))
	since := make([]*int64, 0, len(in.ProcessIDs))
	seen := map[*session.Process]bool{}
	for _, id := range in.ProcessIDs {
		p, err := h.m.Get(id)
		if err != nil {
			return mcptool.Error(wire.OutputOut{ProcessID: id, Error: unknownProcess(id)})
		}
		if seen[p] {
			continue
		}
		seen[p] = true
		procs = append(procs, p)
		since = append(since, sinceFor(in.SinceSeqs, id, p))
	}
	for k := range in.SinceSeqs {
		if p, err := h.m.Get(k); err != nil || !seen[p] {
			return mcptool.Error(wire.OutputOut{ProcessID: k, Error: "since_seqs names a process that is not in process_ids"})
		}
	}
	var re *regexp.Regexp
	if in.Until != "" {
		var err error
		if re, err = compilePattern("until", in.Until); err != nil {
			return mcptool.Error(wire.OutputOut{Error: err.Error()})
		}
	}
	stopProgress := h.progress(ctx, req, procs[0])
	i, o := awaitFirst(ctx, procs, since, re, time.Now().Add(d))
	stopProgress()
	p := procs[i]
	out := h.Answer(p, h.Query(since[i], in.MaxOutputBytes, session.Both))
	out.YieldReason = string(o.Reason)
	if o.Reason == session.ReasonPattern {
		out.Matched, out.MatchedLine = o.Matched, o.Line
	}
	for _, q := range procs {
		info := q.Info()
		w := wire.WaitedOut{ProcessID: q.ID, Name: q.Name, Status: string(info.Status)}
		if info.Status == session.Running {
			w.WaitingForInput = q.InputState().Waiting
		}
		out.Waited = append(out.Waited, w)
	}
	return nil, out, nil
}

// sinceFor finds a process's entry in since_seqs, under the id or the
// name it was given by.
func sinceFor(m map[string]int64, given string, p *session.Process) *int64 {
	for _, k := range []string{given, p.ID, p.Name} {
		if v, ok := m[k]; ok && k != "" {
			return &v
		}
	}
	return nil
}

// awaitFirst waits on every process at once and returns the index of the
// first whose wait ended, with why. At the deadline (or when ctx ends)
// the first process is reported. It owns one goroutine per process and
// joins them all before returning.
func awaitFirst(ctx context.Context, procs []*session.Process, since []*int64, re *regexp.Regexp, deadline time.Time) (int, session.Outcome) {
	type res struct {
		i int
		o session.Outcome
	}
	wctx, cancel := context.WithCancel(ctx)
	results := make(chan res, len(procs))
	var wg sync.WaitGroup
	for i, p := range procs {
		u := session.Until{InputWait: true}
		if re != nil {
			u.Pattern, u.From = re, p.LogEnd()
			if since[i] != nil {
				u.From = *since[i]
			}
		}
		wg.Go(func() { results <- res{i, p.Await(wctx, deadline, u)} })
	}
	first := <-results
	cancel()
	wg.Wait()
	if first.o.Reason == session.ReasonCancelled && ctx.Err() == nil {
		first.o.Reason = session.ReasonDeadline // cannot happen: only we cancel after the first
	}
	if first.o.Reason == session.ReasonDeadline || first.o.Reason == session.ReasonCancelled {
		return 0, session.Outcome{Reason: first.o.Reason}
	}
	return first.i, first.o
}
