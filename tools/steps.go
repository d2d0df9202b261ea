package tools

import (
	"context"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/answer"
	"github.com/yieldshell/yieldshell/internal/mcptool"
	"github.com/yieldshell/yieldshell/internal/session"
	"github.com/yieldshell/yieldshell/internal/wire"
)

// Bounds of a write with steps.
const (
	maxSteps           = 50
	defaultStepTimeout = 10 * time.Second
)

// writeSteps types each step and waits for its condition before the next.
// Secrets never go through steps: a step is refused, and nothing more
// typed, when the program waits for a password (wait_for_password, or
// ask_human, is the way to give one).
func (h *handlers) writeSteps(ctx context.Context, req *mcp.CallToolRequest, p *session.Process, in wire.WriteIn) (*mcp.CallToolResult, wire.WriteOut, error) {
	if in.Input != "" || len(in.Keys) > 0 || in.Newline || in.WaitForPassword || in.YieldMs != nil {
		return mcptool.Error(wire.WriteOut{ProcessID: p.ID, Error: "steps replace input, keys, newline, yield_ms and wait_for_password: put the input in the steps (a secret never goes in a step: use wait_for_password)"})
	}
	if len(in.Steps) > maxSteps {
		return mcptool.Error(wire.WriteOut{ProcessID: p.ID, Error: fmt.Sprintf("%d steps; at most %d in one write", len(in.Steps), maxSteps)})
	}
	for i, st := range in.Steps {
		if st.Until != "" {
			if _, err := compilePattern("until", st.Until); err != nil {
				return mcptool.Error(wire.WriteOut{ProcessID: p.ID, Error: fmt.Sprintf("step %d: %v; nothing was typed", i, err)})
			}
		}
	}
	stopProgress := h.progress(ctx, req, p)
	defer stopProgress()
	out := wire.WriteOut{ProcessID: p.ID, OK: true}
	var last session.Outcome
	for i, st := range in.Steps {
		res, o, delivered := h.runStep(ctx, p, st, in.MaxOutputBytes, i == len(in.Steps)-1)
		out.Steps = append(out.Steps, res)
		last = o
		if !delivered {
			out.OK = false
		}
		if !res.OK {
			out.FailedStep = new(i)
			break
		}
	}
	snap := p.Snapshot(session.Query{Input: session.InputNow})
	info := snap.Info
	out.Status = string(info.Status)
	out.ExitCode, out.Signal = answer.ExitFields(info)
	out.EndedBy = string(info.EndedBy)
	n := out.Steps[len(out.Steps)-1]
	out.NextSeq, out.YieldReason = new(n.NextSeq), n.YieldReason
	if info.Status == session.Running {
		st := last.Input
		if last.Reason != session.ReasonInputWait && last.Reason != session.ReasonReady {
			st = snap.Input
		}
		out.InputOut = answer.Input(st)
		out.CommandOut = answer.Commands(snap.CommandExits)
	}
	if out.FailedStep != nil {
		out.Error = fmt.Sprintf("step %d failed (%s); the steps after it were not typed", *out.FailedStep, n.YieldReason)
		if n.Error != "" {
			out.Error = fmt.Sprintf("step %d failed: %s; the steps after it were not typed", *out.FailedStep, n.Error)
		}
		return &mcp.CallToolResult{IsError: !out.OK}, out, nil
	}
	return nil, out, nil
}

// runStep types one step and waits for its condition; delivered is false
// when nothing was typed (refused, or the process did not take it).
func (h *handlers) runStep(ctx context.Context, p *session.Process, st wire.WriteStep, maxBytes *int, last bool) (wire.StepOut, session.Outcome, bool) {
	from := p.LogEnd()
	res := wire.StepOut{NextSeq: from}
	if s := p.InputState(); s.Waiting && s.Kind == "password" {
		res.YieldReason, res.Error = "refused", "the program waits for a password: a secret never goes in a step; write it with wait_for_password"
		return res, session.Outcome{Reason: session.ReasonInputWait, Input: s}, false
	}
	d := defaultStepTimeout
	if st.TimeoutMs != nil {
		d = mcptool.Millis(max(*st.TimeoutMs, 0))
	}
	d = min(d, h.cfg.Times.MaxYield)
	start := time.Now()
	wctx, cancel := context.WithTimeout(ctx, writeTimeout)
	err := p.Type(wctx, st.Input, st.Keys, st.Newline, false)
	cancel()
	if err != nil {
		res.YieldReason, res.Error = "refused", typingError(err)
		return res, session.Outcome{}, false
	}
	var o session.Outcome
	switch {
	case st.Until != "":
		re, _ := compilePattern("until", st.Until) // checked before the first step
		o = p.Await(ctx, start.Add(d), session.Until{Pattern: re, From: from})
		res.OK = o.Reason == session.ReasonPattern
		res.Matched = o.Matched
	case st.InputWait == nil || *st.InputWait:
		o = p.Await(ctx, start.Add(d), session.Until{InputWait: true, Ready: true})
		res.OK = o.Reason == session.ReasonInputWait || o.Reason == session.ReasonReady ||
			o.Reason == session.ReasonExited && last
	default:
		o = session.Outcome{Reason: "typed"}
		res.OK = true
	}
	res.YieldReason = string(o.Reason)
	q := h.Answer(p, session.Query{Since: &from, MaxBytes: h.Cap(maxBytes), Streams: session.Both, HeadTail: true})
	res.Stdout, res.Stderr, res.NextSeq, res.Omitted, res.Binary = deref(q.Stdout), deref(q.Stderr), *q.NextSeq, q.Omitted, q.Binary
	return res, o, true
}
