package tools

import (
	"context"
	"errors"
	"regexp"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/mcptool"
	"github.com/yieldshell/yieldshell/internal/policy"
	"github.com/yieldshell/yieldshell/internal/session"
	"github.com/yieldshell/yieldshell/internal/wire"
)

func restartTool() *mcp.Tool {
	return &mcp.Tool{
		Name:  "restart",
		Title: "Restart a process",
		Description: `Stop a process (if it is still running: SIGTERM, then SIGKILL after force_after_ms; its ended_by is "restart") and start its command again with the same cwd, env, terminal size, mode and options, under the same name. The new run has a new process_id and the name now refers to it. Without wait_for the answer comes at once; with wait_for it comes when the pattern appears, the run exits, or wait_for_timeout_ms passes. A pending crash restart of the name is cancelled.

Example: {"process_id": "web", "wait_for": "Local:.*http"}`,
		Annotations: mcptool.Annotations("Restart a process", mcptool.Runs),
	}
}

func (h *handlers) restart(ctx context.Context, req *mcp.CallToolRequest, in wire.RestartIn) (*mcp.CallToolResult, wire.RestartOut, error) {
	fail := func(msg string) (*mcp.CallToolResult, wire.RestartOut, error) {
		return mcptool.Error(wire.RestartOut{OutputOut: wire.OutputOut{ProcessID: in.ProcessID, Error: msg}})
	}
	old, err := h.m.Get(in.ProcessID)
	if err != nil {
		return fail(unknownProcess(in.ProcessID))
	}
	var waitFor *regexp.Regexp
	if in.WaitFor != nil && *in.WaitFor != "" {
		if waitFor, err = compilePattern("wait_for", *in.WaitFor); err != nil {
			return fail(err.Error() + "; nothing was stopped or started")
		}
	}
	grace := 3 * time.Second
	if in.ForceAfterMs != nil {
		grace = min(max(mcptool.Millis(*in.ForceAfterMs), 0), maxWait)
	}
	p, err := h.m.Restart(ctx, old, grace)
	if err != nil {
		out := wire.RestartOut{OutputOut: wire.OutputOut{ProcessID: old.ID, Error: sentence(err)}, RestartedFrom: old.ID}
		if r, ok := errors.AsType[*policy.Refusal](err); ok {
			out.Rule = r.Rule
		}
		return mcptool.Error(out)
	}
	var reason session.Reason
	var pf wire.PatternFields
	restarts := 0
	if waitFor != nil {
		p, reason, pf, restarts = h.verifyStart(ctx, p, waitFor, h.waitForLimit(in.WaitForTimeoutMs))
	}
	s := p.Snapshot(session.Query{MaxBytes: h.Cap(in.MaxOutputBytes), Streams: session.Both, Input: session.InputNow})
	out := wire.RestartOut{
		OutputOut:     h.Output(p, s, session.Both),
		Pid:           p.Pid,
		RestartedFrom: old.ID,
	}
	out.YieldReason = string(reason)
	out.PatternFields = pf
	if waitFor != nil {
		out.Notes = append(out.Notes, h.verifyNotes(p, waitFor, reason, s.Info, restarts)...)
	}
	return nil, out, nil
}
