package tools

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/mcptool"
	"github.com/yieldshell/yieldshell/internal/session"
)

// PsIn is ps's input.
type PsIn struct {
	IncludeCompleted *bool `json:"include_completed,omitempty" jsonschema:"include finished processes (default true)"`
	Limit            *int  `json:"limit,omitempty" jsonschema:"most entries to return, newest first (default 50)"`
}

// PsEntry summarises one process.
type PsEntry struct {
	ProcessID   string   `json:"process_id" jsonschema:"handle for read, write, wait and stop"`
	Pid         int      `json:"pid" jsonschema:"operating-system process id"`
	Name        string   `json:"name" jsonschema:"the name given at exec, or empty"`
	Command     string   `json:"command" jsonschema:"the command line"`
	Cwd         string   `json:"cwd" jsonschema:"working directory"`
	Status      string   `json:"status" jsonschema:"running, completed, stopped, timed_out or failed"`
	ExitCode    *int     `json:"exit_code" jsonschema:"exit status (-N for signal N), or null while running"`
	Signal      *string  `json:"signal" jsonschema:"signal that ended it, or null"`
	StartedAt   float64  `json:"started_at" jsonschema:"start time, seconds since the Unix epoch"`
	EndedAt     *float64 `json:"ended_at" jsonschema:"end time, seconds since the Unix epoch, or null while running"`
	DurationMs  float64  `json:"duration_ms" jsonschema:"run time so far or in total, in ms"`
	StdoutBytes int64    `json:"stdout_bytes" jsonschema:"bytes of output produced (the terminal output in PTY mode)"`
	StderrBytes int64    `json:"stderr_bytes" jsonschema:"bytes of standard error produced (pipe mode)"`
	TTY         bool     `json:"tty" jsonschema:"runs under a pseudo-terminal"`
	EndedBy     string   `json:"ended_by,omitempty" jsonschema:"who ended it: exit, signal, stop, timeout, shutdown or input (exec on_input \"fail\")"`
	InputOut
	runHistory
	longFields
}

// PsOut is ps's answer.
type PsOut struct {
	Processes []PsEntry `json:"processes" jsonschema:"newest first"`
	Server    *Health   `json:"server,omitempty" jsonschema:"the server's own health"`
}

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

func (h *handlers) ps(ctx context.Context, req *mcp.CallToolRequest, in PsIn) (*mcp.CallToolResult, PsOut, error) {
	limit := 50
	if in.Limit != nil {
		limit = max(*in.Limit, 0)
	}
	all := in.IncludeCompleted == nil || *in.IncludeCompleted
	out := PsOut{Processes: []PsEntry{}}
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
		if info.Status == session.Running {
			e.InputOut = inputOut(s.Input)
		}
		if !info.EndedAt.IsZero() {
			e.EndedAt = new(epoch(info.EndedAt))
		}
		e.runHistory = h.history(p)
		e.longFields = h.long(p, s)
		out.Processes = append(out.Processes, e)
		res.Content = append(res.Content, mcptool.LogLink(info.ID, info.Name))
	}
	out.Server = h.health(req)
	return res, out, nil
}
