package shellyeah

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/session"
	"github.com/yieldshell/yieldshell/tools/mcptool"
)

// CheckShellIn is check_shell's input.
type CheckShellIn struct {
	Label    string `json:"label" jsonschema:"the shell's label"`
	LogLines *int   `json:"log_lines,omitempty" jsonschema:"how many of the newest log lines to return (default 20, at most 1000)"`
}

// CheckOut is check_shell's (and send_input's) answer.
type CheckOut struct {
	Shell
	Ignored
	Logs    []string `json:"logs" jsonschema:"the newest log lines, clean text"`
	Hint    string   `json:"hint,omitempty"`
	Message string   `json:"message" jsonschema:"a summary of errors, warnings, URLs and prompts in these lines"`
	Error   string   `json:"error,omitempty"`
}

func checkShellTool() *mcp.Tool {
	return &mcp.Tool{
		Name:  "check_shell",
		Title: "Check a background shell",
		Description: `Status, exit code, detected URLs and the newest log lines of a shell, with a one-line summary of errors, warnings, URLs and prompts in them. A crashed shell says "crashed" with its exit code; a label this server does not know is an error.

Example: {"label": "web", "log_lines": 50}`,
		Annotations: mcptool.Annotations("Check a background shell", true, false, true, false),
	}
}

func (h *handlers) checkShell(ctx context.Context, req *mcp.CallToolRequest, in CheckShellIn) (*mcp.CallToolResult, CheckOut, error) {
	n := defaultLines
	if in.LogLines != nil {
		n = min(max(*in.LogLines, 0), maxLines)
	}
	p, err := h.lookup(in.Label)
	if err != nil {
		return mcptool.Error(CheckOut{Shell: Shell{Label: in.Label, Status: "not_found", Args: []string{}}, Logs: []string{}, Error: sentence(err)})
	}
	return nil, h.check(p, n), nil
}

func (h *handlers) check(p *session.Process, n int) CheckOut {
	out := CheckOut{Shell: h.shell(p)}
	var older bool
	out.Logs, older = h.lines(p, n)
	out.Message = summarize(out.Logs)
	switch {
	case n == 0:
	case older:
		out.Hint = "Returned the newest lines; get_all_loglines returns everything retained."
	default:
		out.Hint = "Returned every line retained."
	}
	return out
}
