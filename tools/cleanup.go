package tools

import (
	"context"
	"github.com/yieldshell/yieldshell/internal/wire"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/mcptool"
)

func cleanupTool() *mcp.Tool {
	return &mcp.Tool{
		Name:  "cleanup",
		Title: "Forget finished processes",
		Description: `Remove the records (and retained output) of finished processes older than the thresholds; running processes are never touched. Both thresholds default to one hour (3600000 ms); 0 forgets every finished process of that kind. Returns how many were removed.

Example: {"completed_older_than_ms": 0, "stopped_older_than_ms": 0}`,
		Annotations: mcptool.Annotations("Forget finished processes", mcptool.Ends),
	}
}

func (h *handlers) cleanup(ctx context.Context, req *mcp.CallToolRequest, in wire.CleanupIn) (*mcp.CallToolResult, wire.CleanupOut, error) {
	olderThan := func(p *int) time.Duration {
		if p == nil {
			return time.Hour
		}
		return mcptool.Millis(*p)
	}
	n := h.m.Cleanup(olderThan(in.CompletedOlderThanMs), olderThan(in.StoppedOlderThanMs))
	return nil, wire.CleanupOut{Removed: n}, nil
}
