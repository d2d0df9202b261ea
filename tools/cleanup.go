package tools

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/mcptool"
)

// CleanupIn is cleanup's input.
type CleanupIn struct {
	CompletedOlderThanMs *int `json:"completed_older_than_ms,omitempty" jsonschema:"remove completed processes that ended longer ago than this (default 3600000)"`
	StoppedOlderThanMs   *int `json:"stopped_older_than_ms,omitempty" jsonschema:"remove stopped, timed-out and failed processes that ended longer ago than this (default 3600000)"`
}

// CleanupOut is cleanup's answer.
type CleanupOut struct {
	Removed int `json:"removed" jsonschema:"how many finished processes were forgotten"`
}

func cleanupTool() *mcp.Tool {
	return &mcp.Tool{
		Name:  "cleanup",
		Title: "Forget finished processes",
		Description: `Remove the records (and retained output) of finished processes older than the thresholds; running processes are never touched. Both thresholds default to one hour (3600000 ms); 0 forgets every finished process of that kind. Returns how many were removed.

Example: {"completed_older_than_ms": 0, "stopped_older_than_ms": 0}`,
		Annotations: mcptool.Annotations("Forget finished processes", mcptool.Ends),
	}
}

func (h *handlers) cleanup(ctx context.Context, req *mcp.CallToolRequest, in CleanupIn) (*mcp.CallToolResult, CleanupOut, error) {
	ms := func(p *int) time.Duration {
		if p == nil {
			return time.Hour
		}
		return ms(*p)
	}
	n := h.m.Cleanup(ms(in.CompletedOlderThanMs), ms(in.StoppedOlderThanMs))
	return nil, CleanupOut{Removed: n}, nil
}
