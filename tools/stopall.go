package tools

import (
	"context"
	"github.com/yieldshell/yieldshell/internal/wire"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/session"
)

// stopAll stops every running process at once and cancels every pending
// crash restart; the answer lists each one's outcome. stopped is true when
// every one is gone.
func (h *handlers) stopAll(ctx context.Context, sig syscall.Signal, grace time.Duration) (*mcp.CallToolResult, wire.StopOut, error) {
	results := h.m.StopAll(ctx, sig, grace)
	out := wire.StopOut{Stopped: true, Signal: session.SignalName(sig), Results: []wire.StopEntry{}}
	for _, r := range results {
		e := wire.StopEntry{ProcessID: r.Process.ID, Name: r.Process.Name, Stopped: r.Gone, Forced: r.Killed,
			Status: string(r.Info.Status), ExitCode: r.Info.ExitCode}
		if r.Err != nil {
			e.Error = new(sentence(r.Err))
		} else if !r.Gone {
			e.Error = new("the process group did not end even after SIGKILL; check ps later")
		}
		out.Stopped = out.Stopped && e.Error == nil
		out.Results = append(out.Results, e)
	}
	if !out.Stopped {
		out.Error = new("some processes did not stop; see results")
		return &mcp.CallToolResult{IsError: true}, out, nil
	}
	return nil, out, nil
}
