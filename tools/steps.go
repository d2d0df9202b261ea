package tools

import (
	"context"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/mcptool"
	"github.com/yieldshell/yieldshell/internal/session"
)

// Bounds of a write with steps.
const (
	maxSteps           = 50
	defaultStepTimeout = 10 * time.Second
)

// WriteStep is one step of a write with steps: what to type, then what to
// wait for before the next step is typed.
type WriteStep struct {
	Input     string   `json:"input,omitempty" jsonschema:"text to type"`
	Keys      []string `json:"keys,omitempty" jsonschema:"named keys sent after input (as write's keys)"`
	Newline   bool     `json:"newline,omitempty" jsonschema:"press Enter after the input and keys"`
	Until     string   `json:"until,omitempty" jsonschema:"regex (Go RE2): the step succeeds when a line of the output printed since it was typed matches"`
	InputWait *bool    `json:"input_wait,omitempty" jsonschema:"without until: the step succeeds when the program waits for input again (default true); false: it succeeds once typed"`
	TimeoutMs *int     `json:"timeout_ms,omitempty" jsonschema:"how long the step may wait for its condition (default 10000, capped like yield_ms)"`
}

// StepOut is the result of one step.
type StepOut struct {
	OK          bool     `json:"ok" jsonschema:"the step's condition held"`
	Stdout      string   `json:"stdout" jsonschema:"the output since the step was typed (its echo, then the reply)"`
	Stderr      string   `json:"stderr,omitempty" jsonschema:"standard error since the step, in pipe mode"`
	NextSeq     int64    `json:"next_seq" jsonschema:"position after the step's output"`
	YieldReason string   `json:"yield_reason" jsonschema:"why the step's wait ended: input_wait, pattern, exited, typed (no condition), deadline, cancelled or refused"`
	Matched     string   `json:"matched,omitempty" jsonschema:"with until: the text it matched"`
	Error       string   `json:"error,omitempty" jsonschema:"why the step failed"`
	Omitted     *Omitted `json:"omitted,omitempty" jsonschema:"output left out of stdout: read since_seq from_seq returns it"`
	Binary      bool     `json:"binary,omitempty" jsonschema:"the step's output is binary and not shown"`
}

// stepsFields are what a write with steps adds to write's answer.
type stepsFields struct {
	Steps      []StepOut `json:"steps,omitempty" jsonschema:"with steps: one result per step run, in order; it stops after the first that failed"`
	FailedStep *int      `json:"failed_step,omitempty" jsonschema:"with steps: the 0-based index of the step whose condition failed (the steps after it were not typed)"`
}

// writeSteps types each step and waits for its condition before the next.
// Secrets never go through steps: a step is refused, and nothing more
// typed, when the program waits for a password (wait_for_password, or
// ask_human, is the way to give one).
func (h *handlers) writeSteps(ctx context.Context, req *mcp.CallToolRequest, p *session.Process, in WriteIn) (*mcp.CallToolResult, WriteOut, error) {
	if in.Input != "" || len(in.Keys) > 0 || in.Newline || in.WaitForPassword || in.YieldMs != nil {
		return mcptool.Error(WriteOut{ProcessID: p.ID, Error: "steps replace input, keys, newline, yield_ms and wait_for_password: put the input in the steps (a secret never goes in a step: use wait_for_password)"})
	}
	if len(in.Steps) > maxSteps {
		return mcptool.Error(WriteOut{ProcessID: p.ID, Error: fmt.Sprintf("%d steps; at most %d in one write", len(in.Steps), maxSteps)})
	}
	for i, st := range in.Steps {
		if st.Until != "" {
			if _, err := compilePattern("until", st.Until); err != nil {
				return mcptool.Error(WriteOut{ProcessID: p.ID, Error: fmt.Sprintf("step %d: %v; nothing was typed", i, err)})
			}
		}
	}
	stopProgress := h.progress(ctx, req, p)
	defer stopProgress()
	out := WriteOut{ProcessID: p.ID, OK: true}
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
	out.ExitCode, out.Signal = exitFields(info)
	out.EndedBy = string(info.EndedBy)
	n := out.Steps[len(out.Steps)-1]
	out.NextSeq, out.YieldReason = new(n.NextSeq), n.YieldReason
	if info.Status == session.Running {
		st := last.Input
		if last.Reason != session.ReasonInputWait && last.Reason != session.ReasonReady {
			st = snap.Input
		}
		out.InputOut = inputOut(st)
		out.CommandOut = commandOut(snap.CommandExits)
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
func (h *handlers) runStep(ctx context.Context, p *session.Process, st WriteStep, maxBytes *int, last bool) (StepOut, session.Outcome, bool) {
	from := p.LogEnd()
	res := StepOut{NextSeq: from}
	if s := p.InputState(); s.Waiting && s.Kind == "password" {
		res.YieldReason, res.Error = "refused", "the program waits for a password: a secret never goes in a step; write it with wait_for_password"
		return res, session.Outcome{Reason: session.ReasonInputWait, Input: s}, false
	}
	d := defaultStepTimeout
	if st.TimeoutMs != nil {
		d = ms(max(*st.TimeoutMs, 0))
	}
	d = min(d, h.cfg.MaxYield)
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
	q := h.answer(p, session.Query{Since: &from, MaxBytes: h.outputCap(maxBytes), Streams: session.Both, HeadTail: true})
	res.Stdout, res.Stderr, res.NextSeq, res.Omitted, res.Binary = deref(q.Stdout), deref(q.Stderr), *q.NextSeq, q.Omitted, q.Binary
	return res, o, true
}
