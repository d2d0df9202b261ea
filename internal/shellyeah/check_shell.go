package shellyeah

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/mcptool"
	"github.com/yieldshell/yieldshell/internal/session"
)

// CheckShellIn is check_shell's input.
type CheckShellIn struct {
	Label    string `json:"label" jsonschema:"the shell's label"`
	LogLines *int   `json:"log_lines,omitempty" jsonschema:"most new log lines to return, the newest (default 20, at most 1000); 0 returns none and leaves them for the next check"`
}

// CheckOut is check_shell's (and send_input's) answer.
type CheckOut struct {
	Shell
	Ignored
	Logs    []string `json:"logs" jsonschema:"the log lines printed since the previous check of this shell (all retained lines at the first check), clean text"`
	Hint    string   `json:"hint" jsonschema:"how many new lines there were and how many are shown"`
	Message string   `json:"message" jsonschema:"a summary of errors, warnings, URLs and prompts in the new lines (and the prompt the shell waits at)"`
	Error   string   `json:"error,omitempty"`
}

func checkShellTool() *mcp.Tool {
	return &mcp.Tool{
		Name:  "check_shell",
		Title: "Check a background shell",
		Description: `Status, exit code, detected URLs and the log lines printed since the previous check of this shell (the newest log_lines of them), with a one-line summary of errors, warnings, URLs and prompts in them. A crashed shell says "crashed" with its exit code; a label this server does not know is an error.

Example: {"label": "web", "log_lines": 50}`,
		Annotations: mcptool.Annotations("Check a background shell", mcptool.Reads),
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

// check answers about p with at most n of the lines new since its previous
// check; unless n is 0, those lines count as seen.
func (h *handlers) check(p *session.Process, n int) CheckOut {
	h.mu.Lock()
	since := h.checked[p]
	h.mu.Unlock()
	s := h.snapshot(p, since, false)
	out := CheckOut{Shell: h.shell(p, s)}
	fresh, evicted := h.lines(s)
	out.Logs = fresh[len(fresh)-min(n, len(fresh)):]
	if n > 0 {
		h.mu.Lock()
		h.checked[p] = max(h.checked[p], s.NextSeq) // a concurrent check may have read further
		h.mu.Unlock()
	}
	out.Message = summarize(fresh, out.Prompt)
	switch {
	case len(fresh) == 0:
		out.Hint = "No new log lines since last check."
	case len(out.Logs) == len(fresh):
		out.Hint = fmt.Sprintf("Returned all %d new log lines since last check.", len(fresh))
	default:
		out.Hint = fmt.Sprintf("Returned the %d newest of %d new log lines since last check; get_all_loglines returns every retained line.", len(out.Logs), len(fresh))
	}
	if n == 0 && len(fresh) > 0 {
		out.Hint += " log_lines is 0: they stay new for the next check."
	}
	if evicted {
		out.Hint += " Some output since last check was dropped before it could be shown."
	}
	return out
}
