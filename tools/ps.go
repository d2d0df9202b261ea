package tools

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/answer"
	"github.com/yieldshell/yieldshell/internal/mcptool"
	"github.com/yieldshell/yieldshell/internal/session"
	"github.com/yieldshell/yieldshell/internal/wire"
)

func psTool() *mcp.Tool {
	return &mcp.Tool{
		Name:  "ps",
		Title: "List processes",
		Description: `List the processes this server started, newest first: id, pid, name, command, cwd, status, exit code, times, output sizes, URLs they printed, restarts and the last exit under their name; and the server's own health (version, uptime, running and total counts, limits, the blocklist in force).

Running processes also say whether they wait for input (waiting_for_input, input_kind, prompt), once their output has been quiet for 150 ms; read and wait tell at once.

Example: {"include_completed": false}`,
		Annotations: mcptool.Annotations("List processes", mcptool.Reads),
	}
}

func (h *handlers) ps(ctx context.Context, req *mcp.CallToolRequest, in wire.PsIn) (*mcp.CallToolResult, wire.PsOut, error) {
	limit := 50
	if in.Limit != nil {
		limit = max(*in.Limit, 0)
	}
	all := in.IncludeCompleted == nil || *in.IncludeCompleted
	out := wire.PsOut{Processes: []wire.PsEntry{}}
	res := mcptool.Linked()
	for _, p := range h.m.List() {
		if len(out.Processes) >= limit {
			break
		}
		// A look: the rows on the screen are counted (a prompt, a
		// progress message), not committed to the log.
		s := p.Snapshot(session.Query{Look: true, Input: session.InputSettled})
		info := s.Info
		if !all && info.Status != session.Running {
			continue
		}
		e := wire.PsEntry{
			ProcessID: info.ID, Pid: info.Pid, Name: info.Name, Command: info.Command, Cwd: info.Cwd,
			Status:      string(info.Status),
			StartedAt:   epoch(info.StartedAt),
			DurationMs:  millis(info.Duration),
			StdoutBytes: info.StdoutBytes,
			StderrBytes: info.StderrBytes,
			TTY:         info.TTY,
			EndedBy:     string(info.EndedBy),
		}
		e.ExitCode, e.Signal = answer.ExitFields(info)
		if info.Status == session.Running {
			e.InputOut = answer.Input(s.Input)
		}
		if !info.EndedAt.IsZero() {
			e.EndedAt = new(epoch(info.EndedAt))
		}
		e.RunHistory = h.history(p)
		e.LongFields = h.Long(p, s)
		out.Processes = append(out.Processes, e)
		res.Content = append(res.Content, mcptool.LogLink(info.ID, info.Name))
	}
	out.Server = h.health(req)
	return res, out, nil
}
