package shellyeah

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/mcptool"
)

// RestartShellIn is restart_shell's input.
type RestartShellIn struct {
	Label string `json:"label" jsonschema:"the shell's label"`
}

func restartShellTool() *mcp.Tool {
	return &mcp.Tool{
		Name:  "restart_shell",
		Title: "Restart a background shell",
		Description: `Stop a shell if it is running (SIGTERM, SIGKILL after 3 s) and start it again with its original command, args, directory and options (verification pattern and restart policy included). The answer is start_shell's, with the new pid.

Example: {"label": "web"}`,
		Annotations: mcptool.Annotations("Restart a background shell", mcptool.Runs),
	}
}

func (h *handlers) restartShell(ctx context.Context, req *mcp.CallToolRequest, in RestartShellIn) (*mcp.CallToolResult, StartOut, error) {
	fail := func(msg string) (*mcp.CallToolResult, StartOut, error) {
		return mcptool.Error(StartOut{Shell: Shell{Label: in.Label, Status: "error", Args: []string{}}, ShellLogs: []string{}, ToolLogs: []string{}, Error: msg, Message: msg})
	}
	old, err := h.lookup(in.Label)
	if err != nil {
		return fail(sentence(err))
	}
	oi := old.Info()
	before := fmt.Sprintf("The previous run (pid %d) had ended: %s.", old.Pid, h.status(old, oi))
	if oi.EndedAt.IsZero() {
		before = fmt.Sprintf("Stopped the previous run (pid %d).", old.Pid)
	}
	p, err := h.m.Restart(ctx, old, stopGrace)
	if err != nil {
		return fail(sentence(err))
	}
	h.mu.Lock()
	sa := h.started[p.Name]
	h.mu.Unlock()
	host := sa.Host
	if host == "" {
		host = "unknown"
	}
	out := h.startAnswer(ctx, p, host, sa.Verify)
	out.ToolLogs = append([]string{before}, out.ToolLogs...)
	return nil, out, nil
}
