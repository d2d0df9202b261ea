package tools

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/mcptool"
	"github.com/yieldshell/yieldshell/internal/session"
	"github.com/yieldshell/yieldshell/internal/wire"
)

// maxWait caps one wait so that it answers well within the request timeouts
// clients use (60 s in the TypeScript SDK).
const maxWait = 55 * time.Second

func waitTool() *mcp.Tool {
	return &mcp.Tool{
		Name:  "wait",
		Title: "Wait for a process to finish",
		Description: `Wait until a process finishes, or until timeout_ms passes, and return its status and output. The process is never killed: if it is still running at the deadline the answer says status "running" and it carries on in the background.

Example: {"process_id": "proc_1a2b3c4d5e6f", "timeout_ms": 20000}

timeout_ms defaults to 30000 and is capped at 55000 so the call answers within client request timeouts; call wait again to keep waiting. A process has finished once its command and everything it started (its process group, and descendants that left the group) have ended: a command that exits leaving "cmd &" behind stays running until that ends. A process that waits for input will not finish by waiting: wait answers at once then, with waiting_for_input true, the prompt and what it asks (input_kind, choices, items). A server that reads its terminal only for shortcut keys is serving, not waiting (ready true, with its ports): wait waits on; use until to wait for a line of its output. While a person has an ask_human page for the process, its input waits are theirs: wait answers when they are done, with yield_reason human_done, human_declined or human_left (once), then the program's reply. yield_reason says why the wait returned: exited, input_wait, deadline or cancelled, or pattern when until (a regex) matched a line of output, e.g. {"process_id": "web", "until": "compiled|error"}.

Several processes at once: {"process_ids": ["web", "tests"], "since_seqs": {"tests": 120}} answers when the first of them finishes, waits for input or matches until; process_id names that one, yield_reason why, and waited lists every process with its status.`,
		Annotations: mcptool.Annotations("Wait for a process to finish", mcptool.Reads),
	}
}

func (h *handlers) wait(ctx context.Context, req *mcp.CallToolRequest, in wire.WaitIn) (*mcp.CallToolResult, wire.OutputOut, error) {
	d := 30 * time.Second
	if in.TimeoutMs != nil {
		d = mcptool.Millis(*in.TimeoutMs)
	}
	d = min(max(d, 0), maxWait)
	if len(in.ProcessIDs) > 0 {
		return h.waitMany(ctx, req, in, d)
	}
	if in.ProcessID == "" {
		return mcptool.Error(wire.OutputOut{Error: "wait needs process_id, or process_ids to wait on several"})
	}
	p, err := h.m.Get(in.ProcessID)
	if err != nil {
		return mcptool.Error(wire.OutputOut{ProcessID: in.ProcessID, Error: unknownProcess(in.ProcessID)})
	}
	q := h.Query(in.SinceSeq, in.MaxOutputBytes, session.Both)
	q.Input = session.InputNow
	var o session.Outcome
	var pf wire.PatternFields
	stopProgress := h.progress(ctx, req, p)
	if in.Until != "" {
		re, err := compilePattern("until", in.Until)
		if err != nil {
			stopProgress()
			return mcptool.Error(wire.OutputOut{ProcessID: p.ID, Error: err.Error()})
		}
		from := p.LogEnd()
		if in.SinceSeq != nil {
			from = *in.SinceSeq
		}
		o = p.Await(ctx, time.Now().Add(d), session.Until{Pattern: re, From: from})
		_, pf = patternAnswer(o)
		pf.Verified = nil
	} else {
		// A person's page ends the wait, once (ask_human).
		o = p.AwaitPerson(ctx, time.Now().Add(d), session.Until{InputWait: true, Answer: &q})
	}
	stopProgress()
	out := h.Output(p, p.After(o, q), q.Streams)
	out.YieldReason = string(o.Reason)
	out.PatternFields = pf
	return nil, out, nil
}
