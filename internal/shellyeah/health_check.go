package shellyeah

import (
	"context"
	"math"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/answer"
	"github.com/yieldshell/yieldshell/internal/mcptool"
	"github.com/yieldshell/yieldshell/internal/roots"
	"github.com/yieldshell/yieldshell/internal/wire"
)

// HealthOut is health_check's answer.
type HealthOut struct {
	Ignored
	Status              string  `json:"status"`
	ServerName          string  `json:"server_name"`
	ServerVersion       string  `json:"server_version"`
	ActiveShells        int     `json:"active_shells" jsonschema:"shells running now"`
	TotalShells         int     `json:"total_shells" jsonschema:"runs known, running and ended (until purged)"`
	MaxShells           int     `json:"max_shells" jsonschema:"YIELDSHELL_MAX_PROCESSES"`
	UptimeMs            float64 `json:"uptime_ms"`
	IsZombieCheckActive bool    `json:"is_zombie_check_active" jsonschema:"always false: every process is reaped the moment it exits, no sweep is needed"`
	LogDir              string  `json:"log_dir,omitempty"`
	PurgeAfterMs        int     `json:"purge_after_ms"`
	roots.Report
	Sandbox wire.SandboxHealth `json:"sandbox" jsonschema:"yieldshell extension: what confines shells and what the kernel enforces"`
}

func healthCheckTool() *mcp.Tool {
	return &mcp.Tool{
		Name:        "health_check",
		Title:       "Server health",
		Description: `The server's own state: version, uptime, running and known shells, the limit, where logs go.`,
		Annotations: mcptool.Annotations("Server health", mcptool.Reads),
	}
}

func (h *handlers) healthCheck(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, HealthOut, error) {
	st := h.m.Stats()
	return nil, HealthOut{
		Sandbox: answer.SandboxHealth(h.cfg, h.m),
		Status:  "ok", ServerName: "yieldshell", ServerVersion: h.version,
		ActiveShells: st.Running, TotalShells: st.Total, MaxShells: h.cfg.Limits.Processes,
		UptimeMs:     math.Round(float64(time.Since(st.StartedAt))/float64(time.Millisecond)*10) / 10,
		LogDir:       h.cfg.Log.Dir,
		PurgeAfterMs: int(h.cfg.Times.PurgeAfter.Milliseconds()),
		Report:       h.roots.Report(req, h.cfg),
	}, nil
}
