package tools

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/session"
)

// PsIn is ps's input.
type PsIn struct {
	IncludeCompleted *bool `json:"include_completed,omitempty" jsonschema:"include finished processes (default true)"`
	Limit            *int  `json:"limit,omitempty" jsonschema:"most entries to return, newest first (default 50)"`
}

// PsEntry summarises one process.
type PsEntry struct {
	ProcessID   string   `json:"process_id"`
	Pid         int      `json:"pid"`
	Name        string   `json:"name"`
	Command     string   `json:"command"`
	Cwd         string   `json:"cwd"`
	Status      string   `json:"status"`
	ExitCode    *int     `json:"exit_code"`
	Signal      *string  `json:"signal"`
	StartedAt   float64  `json:"started_at"`
	EndedAt     *float64 `json:"ended_at"`
	DurationMs  float64  `json:"duration_ms"`
	StdoutBytes int64    `json:"stdout_bytes"`
	StderrBytes int64    `json:"stderr_bytes"`
	TTY         bool     `json:"tty"`
	EndedBy     string   `json:"ended_by,omitempty"`
	runHistory
	longFields
}

// PsOut is ps's answer.
type PsOut struct {
	Processes []PsEntry `json:"processes"`
	Server    *Health   `json:"server,omitempty"`
}

func psTool() *mcp.Tool {
	return &mcp.Tool{
		Name:  "ps",
		Title: "List processes",
		Description: `List the processes this server started, newest first: id, pid, name, command, cwd, status, exit code, times, output sizes, URLs they printed, restarts and the last exit under their name; and the server's own health (version, uptime, running and total counts, limits, the blocklist in force).

Example: {"include_completed": false}`,
		Annotations: annotations("List processes", true, false, true, false),
	}
}

func (h *handlers) ps(ctx context.Context, req *mcp.CallToolRequest, in PsIn) (*mcp.CallToolResult, PsOut, error) {
	limit := 50
	if in.Limit != nil {
		limit = max(*in.Limit, 0)
	}
	all := in.IncludeCompleted == nil || *in.IncludeCompleted
	out := PsOut{Processes: []PsEntry{}}
	for _, p := range h.m.List() {
		if len(out.Processes) >= limit {
			break
		}
		info := p.Info()
		if !all && info.Status != session.Running {
			continue
		}
		e := PsEntry{
			ProcessID: info.ID, Pid: info.Pid, Name: info.Name, Command: info.Command, Cwd: info.Cwd,
			Status:      string(info.Status),
			StartedAt:   epoch(info.StartedAt),
			DurationMs:  millis(info.Duration),
			StdoutBytes: info.StdoutBytes,
			StderrBytes: info.StderrBytes,
			TTY:         info.TTY,
			EndedBy:     string(info.EndedBy),
		}
		e.ExitCode, e.Signal = exitFields(info)
		if !info.EndedAt.IsZero() {
			e.EndedAt = ptr(epoch(info.EndedAt))
		}
		e.runHistory = h.history(p)
		e.longFields = h.long(p)
		out.Processes = append(out.Processes, e)
	}
	out.Server = h.health()
	return nil, out, nil
}
