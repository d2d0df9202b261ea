package shellyeah

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/session"

	"github.com/yieldshell/yieldshell/internal/mcptool"
)

// ListShellsIn is list_shells's input.
type ListShellsIn struct {
	LogLines *int `json:"log_lines,omitempty" jsonschema:"newest log lines to include for each shell (default 0)"`
}

// ListedShell is one entry of list_shells.
type ListedShell struct {
	Shell
	Logs    []string `json:"logs"`
	LogHint string   `json:"log_hint" jsonschema:"how many lines are shown and how many are stored"`
}

// ListShellsOut is list_shells's answer.
type ListShellsOut struct {
	Ignored
	Shells []ListedShell `json:"shells" jsonschema:"the newest run of every label, newest first"`
}

func listShellsTool() *mcp.Tool {
	return &mcp.Tool{
		Name:  "list_shells",
		Title: "List background shells",
		Description: `List every shell this server knows (the newest run of each label, newest first) with its status, exit code, URLs and, with log_lines, its newest log lines. Ended shells stay listed until they are purged (YIELDSHELL_PURGE_AFTER_MS). The text content is the bare array of shells, as the peer's clients read it; structured content wraps it in "shells".

Example: {"log_lines": 5}`,
		Annotations: mcptool.Annotations("List background shells", mcptool.Reads),
	}
}

func (h *handlers) listShells(ctx context.Context, req *mcp.CallToolRequest, in ListShellsIn) (*mcp.CallToolResult, ListShellsOut, error) {
	n := 0
	if in.LogLines != nil {
		n = min(max(*in.LogLines, 0), maxLines)
	}
	out := ListShellsOut{Shells: []ListedShell{}}
	for _, p := range h.newestRuns() {
		// Without log_lines the listing shows no log text: it looks
		// without committing the rows on the screen.
		s := h.snapshot(p, 0, n == 0)
		e := ListedShell{Shell: h.shell(p, s)}
		if e.Label == "" {
			e.Label = p.ID
		}
		all, _ := h.lines(s)
		e.Logs = all[len(all)-min(n, len(all)):]
		switch older := len(all) - len(e.Logs); {
		case n == 0:
			e.LogHint = fmt.Sprintf("%d lines stored; log_lines shows them.", len(all))
		case older > 0:
			e.LogHint = fmt.Sprintf("Showing %d lines; %d older stored.", len(e.Logs), older)
		default:
			e.LogHint = fmt.Sprintf("Showing all %d lines.", len(e.Logs))
		}
		out.Shells = append(out.Shells, e)
	}
	// The peer's clients parse the text as a bare array; structured content
	// must be an object.
	text, err := mcptool.JSON(out.Shells)
	if err != nil {
		return nil, out, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, out, nil
}

// newestRuns returns the newest run of every label, newest first.
func (h *handlers) newestRuns() []*session.Process {
	var runs []*session.Process
	seen := map[string]bool{}
	for _, p := range h.m.List() {
		key := p.Name
		if key == "" {
			key = p.ID
		}
		if !seen[key] {
			seen[key] = true
			runs = append(runs, p)
		}
	}
	return runs
}
