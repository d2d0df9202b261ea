package shellyeah

import (
	"context"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/mcptool"
)

// WaitForShellIn is wait_for_shell's input.
type WaitForShellIn struct {
	Label                string   `json:"label" jsonschema:"the shell's label"`
	TargetStatus         string   `json:"target_status,omitempty" jsonschema:"running (default), stopped, crashed or error"`
	TimeoutSeconds       *float64 `json:"timeout_seconds,omitempty" jsonschema:"how long to wait (default 5, at most 55)"`
	CheckIntervalSeconds *float64 `json:"check_interval_seconds,omitempty" jsonschema:"accepted for compatibility; the wait follows the shell's events instead of polling"`
}

// WaitForShellOut is wait_for_shell's answer.
type WaitForShellOut struct {
	Ignored
	Label       string `json:"label"`
	ProcessID   string `json:"process_id,omitempty"`
	FinalStatus string `json:"final_status"`
	ExitCode    *int   `json:"exitCode"`
	Message     string `json:"message"`
	TimedOut    bool   `json:"timed_out"`
	Error       string `json:"error,omitempty"`
}

func waitForShellTool() *mcp.Tool {
	return &mcp.Tool{
		Name:  "wait_for_shell",
		Title: "Wait for a shell to reach a status",
		Description: `Wait until a shell reaches target_status (running, stopped, crashed), or until timeout_seconds pass (timed_out: true). If the shell ends in another status first, the answer comes at once with that final_status. A crash that is followed by a restart under the shell's restart policy is waited through.

Example: {"label": "tests", "target_status": "stopped", "timeout_seconds": 30}`,
		Annotations: mcptool.Annotations("Wait for a shell to reach a status", mcptool.Reads),
	}
}

func (h *handlers) waitForShell(ctx context.Context, req *mcp.CallToolRequest, in WaitForShellIn) (*mcp.CallToolResult, WaitForShellOut, error) {
	target := in.TargetStatus
	switch target {
	case "":
		target = "running"
	case "running", "stopped", "crashed", "error":
	default:
		return mcptool.Error(WaitForShellOut{Label: in.Label, FinalStatus: "error",
			Error: "invalid target_status: use running, stopped, crashed or error"})
	}
	d := 5 * time.Second
	if in.TimeoutSeconds != nil {
		// Bounded before the conversion: a float too large for a duration
		// converts to no defined value.
		d = time.Duration(min(max(*in.TimeoutSeconds, 0), maxWait.Seconds()) * float64(time.Second))
	}
	start := time.Now()
	deadline := start.Add(d)
	for {
		p, err := h.lookup(in.Label)
		if err != nil {
			return mcptool.Error(WaitForShellOut{Label: in.Label, FinalStatus: "error", Error: sentence(err), Message: sentence(err)})
		}
		in2 := p.Info()
		st := h.status(p, in2)
		out := WaitForShellOut{Label: p.Name, ProcessID: p.ID, FinalStatus: st, ExitCode: exitCode(in2)}
		elapsed := time.Since(start).Seconds()
		switch {
		case st == target:
			out.Message = fmt.Sprintf("The shell reached %s after %.1f s.", target, elapsed)
			return nil, out, nil
		case st == "stopped" || st == "crashed":
			out.Message = fmt.Sprintf("The shell ended as %s after %.1f s; it will not reach %s without a restart.", st, elapsed, target)
			return nil, out, nil
		case !time.Now().Before(deadline) || ctx.Err() != nil:
			out.TimedOut = true
			out.Message = fmt.Sprintf("The shell is still %s after %.1f s.", st, elapsed)
			return nil, out, nil
		case st == "restarting":
			h.m.NextRun(ctx, p, deadline)
		default: // running, waiting for an end
			p.WaitEnd(ctx, deadline)
		}
	}
}
