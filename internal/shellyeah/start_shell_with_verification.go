package shellyeah

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/mcptool"
	"github.com/yieldshell/yieldshell/internal/session"
)

// StartVerifiedIn is start_shell_with_verification's input.
type StartVerifiedIn struct {
	StartShellIn
	RetryDelayMs *int `json:"retry_delay_ms,omitempty" jsonschema:"delay before restarting the shell after a crash (default 1000), doubling for each restart in a row"`
	MaxRetries   *int `json:"max_retries,omitempty" jsonschema:"restarts in a row after crashes (non-zero exit or a signal nobody sent); default 3 when retry_delay_ms is given, else 0; stop_shell never triggers one"`
}

func startShellWithVerificationTool() *mcp.Tool {
	return &mcp.Tool{
		Name:  "start_shell_with_verification",
		Title: "Start a background shell and verify it came up",
		Description: `Like start_shell, but answer as soon as verification_pattern appears in the output (verified: true), or say plainly that the shell ended first or verification_timeout_ms passed (verified: false; the shell keeps running unless it ended). max_retries and retry_delay_ms restart the shell when it crashes.

Example: {"command": "npm run dev", "workingDirectory": "/home/me/app", "label": "web", "verification_pattern": "Local:.*http", "verification_timeout_ms": 30000, "max_retries": 3}`,
		Annotations: mcptool.Annotations("Start and verify a background shell", mcptool.Runs),
	}
}

func (h *handlers) startShellWithVerification(ctx context.Context, req *mcp.CallToolRequest, in StartVerifiedIn) (*mcp.CallToolResult, StartOut, error) {
	var rp session.RestartPolicy
	if in.MaxRetries != nil || in.RetryDelayMs != nil {
		rp = session.RestartPolicy{MaxRetries: 3, Delay: time.Second}
		if in.MaxRetries != nil {
			rp.MaxRetries = max(*in.MaxRetries, 0)
		}
		if in.RetryDelayMs != nil {
			rp.Delay = mcptool.Millis(max(*in.RetryDelayMs, 0))
		}
	}
	return h.start(ctx, req, in.StartShellIn, rp)
}
