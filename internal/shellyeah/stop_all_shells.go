package shellyeah

import (
	"context"
	"slices"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/session"

	"github.com/yieldshell/yieldshell/internal/mcptool"
)

// StopAllOut is stop_all_shells's answer.
type StopAllOut struct {
	Ignored
	StoppedCount int           `json:"stopped_count"`
	SkippedCount int           `json:"skipped_count" jsonschema:"shells that had already ended: nothing to stop"`
	ErrorCount   int           `json:"error_count"`
	Details      []StopAllItem `json:"details"`
}

// StopAllItem is one shell's outcome.
type StopAllItem struct {
	Label     string `json:"label"`
	ProcessID string `json:"process_id"`
	Status    string `json:"status"`
	Message   string `json:"message"`
	IsError   bool   `json:"is_error"`
}

func stopAllShellsTool() *mcp.Tool {
	return &mcp.Tool{
		Name:  "stop_all_shells",
		Title: "Stop every background shell",
		Description: `Stop every running shell at once (SIGTERM, SIGKILL after 3 s) and cancel pending crash restarts; details lists each outcome.

Example: {}`,
		Annotations: mcptool.Annotations("Stop every background shell", mcptool.Ends),
	}
}

func (h *handlers) stopAllShells(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, StopAllOut, error) {
	out := StopAllOut{Details: []StopAllItem{}}
	results := h.m.StopAll(ctx, syscall.SIGTERM, stopGrace)
	for _, p := range h.newestRuns() {
		if !slices.ContainsFunc(results, func(r session.StopAllResult) bool { return r.Process == p }) {
			out.SkippedCount++
		}
	}
	for _, r := range results {
		it := StopAllItem{Label: r.Process.Name, ProcessID: r.Process.ID, Status: h.status(r.Process, r.Info)}
		if it.Label == "" {
			it.Label = r.Process.ID
		}
		switch {
		case r.Err != nil:
			it.IsError, it.Message = true, sentence(r.Err)
		case !r.Gone:
			it.IsError, it.Message = true, "did not end even after SIGKILL"
		case r.Killed:
			it.Message = "stopped with SIGKILL"
		default:
			it.Message = "stopped"
		}
		if it.IsError {
			out.ErrorCount++
		} else {
			out.StoppedCount++
		}
		out.Details = append(out.Details, it)
	}
	if out.ErrorCount > 0 {
		return &mcp.CallToolResult{IsError: true}, out, nil
	}
	return nil, out, nil
}
