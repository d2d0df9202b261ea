package shellyeah

import (
	"context"
	"errors"
	"fmt"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/mcptool"
	"github.com/yieldshell/yieldshell/internal/session"
)

// StopShellIn is stop_shell's input.
type StopShellIn struct {
	Label string `json:"label" jsonschema:"the shell's label"`
	Force bool   `json:"force,omitempty" jsonschema:"SIGKILL at once instead of SIGTERM (SIGKILL follows after 3 s anyway)"`
}

// StopShellOut is stop_shell's answer.
type StopShellOut struct {
	Ignored
	Label     string `json:"label"`
	ProcessID string `json:"process_id,omitempty"`
	Status    string `json:"status"`
	Message   string `json:"message"`
	Pid       int    `json:"pid,omitempty"`
	ExitCode  *int   `json:"exitCode"`
	Error     string `json:"error,omitempty"`
}

func stopShellTool() *mcp.Tool {
	return &mcp.Tool{
		Name:  "stop_shell",
		Title: "Stop a background shell",
		Description: `Stop a shell and everything it started: SIGTERM, then SIGKILL if it is still there after 3 s (force: SIGKILL at once). Answers when it is gone. Stopping never triggers a crash restart, and cancels one that is pending.

Example: {"label": "web"}`,
		Annotations: mcptool.Annotations("Stop a background shell", mcptool.Ends),
	}
}

func (h *handlers) stopShell(ctx context.Context, req *mcp.CallToolRequest, in StopShellIn) (*mcp.CallToolResult, StopShellOut, error) {
	p, err := h.lookup(in.Label)
	if err != nil {
		return mcptool.Error(StopShellOut{Label: in.Label, Status: "not_found", Error: sentence(err), Message: sentence(err)})
	}
	sig, grace := syscall.SIGTERM, stopGrace
	if in.Force {
		sig, grace = syscall.SIGKILL, 0
	}
	res, err := p.Stop(ctx, sig, grace, session.EndedByStop)
	cancelled := h.m.CancelRestart(p)
	in2 := p.Info()
	out := StopShellOut{Label: p.Name, ProcessID: p.ID, Pid: p.Pid, Status: h.status(p, in2), ExitCode: exitCode(in2)}
	switch {
	case errors.Is(err, session.ErrNotRunning) && cancelled:
		out.Message = "The shell had crashed; its pending restart is cancelled."
	case errors.Is(err, session.ErrNotRunning):
		out.Message = fmt.Sprintf("The shell had already ended (%s).", out.Status)
	case err != nil:
		out.Error, out.Message = sentence(err), sentence(err)
		return mcptool.Error(out)
	case !res.Gone:
		out.Error = "the shell did not end even after SIGKILL; it may be stuck in the kernel. Check it again later"
		out.Message = out.Error
		return mcptool.Error(out)
	case res.Killed:
		out.Message = "Stopped with SIGKILL."
	default:
		out.Message = fmt.Sprintf("Stopped with %s.", session.SignalName(sig))
	}
	return nil, out, nil
}
