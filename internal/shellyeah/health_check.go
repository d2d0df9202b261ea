package shellyeah

import (
	"context"
	"math"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/mcptool"
	"github.com/yieldshell/yieldshell/internal/roots"
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
	Sandbox SandboxHealth `json:"sandbox" jsonschema:"yieldshell extension: what confines shells and what the kernel enforces"`
}

// SandboxHealth says what is enforced (as ps's server.sandbox does).
type SandboxHealth struct {
	Mode        string   `json:"mode" jsonschema:"YIELDSHELL_SANDBOX: off, read-only, workspace-write or best-effort"`
	Network     string   `json:"network" jsonschema:"YIELDSHELL_SANDBOX_NETWORK of a sandboxed shell"`
	LandlockABI int      `json:"landlock_abi" jsonschema:"the kernel's Landlock ABI (0: none)"`
	Seccomp     bool     `json:"seccomp" jsonschema:"seccomp filters with user notification"`
	NotEnforced []string `json:"not_enforced,omitempty" jsonschema:"what this kernel lacks for a sandboxed shell"`
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
	sb := h.m.SandboxSupport()
	return nil, HealthOut{
		Sandbox: SandboxHealth{Mode: h.cfg.Sandbox.Mode, Network: h.cfg.Sandbox.Network, LandlockABI: sb.LandlockABI,
			Seccomp: sb.Seccomp, NotEnforced: sb.Gaps()},
		Status: "ok", ServerName: "yieldshell", ServerVersion: h.version,
		ActiveShells: st.Running, TotalShells: st.Total, MaxShells: h.cfg.Limits.Processes,
		UptimeMs:     math.Round(float64(time.Since(st.StartedAt))/float64(time.Millisecond)*10) / 10,
		LogDir:       h.cfg.Log.Dir,
		PurgeAfterMs: int(h.cfg.Times.PurgeAfter.Milliseconds()),
		Report:       h.roots.Report(req, h.cfg),
	}, nil
}
