package shellyeah

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/tools/mcptool"
)

// ListShellsIn is list_shells's input.
type ListShellsIn struct {
	LogLines *int `json:"log_lines,omitempty" jsonschema:"newest log lines to include for each shell (default 0)"`
}

// ListedShell is one entry of list_shells.
type ListedShell struct {
	Shell
	Logs    []string `json:"logs"`
	LogHint string   `json:"log_hint,omitempty"`
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
		Description: `List every shell this server knows (the newest run of each label, newest first) with its status, exit code, URLs and, with log_lines, its newest log lines. Ended shells stay listed until they are purged (YIELDSHELL_PURGE_AFTER_MS).

Example: {"log_lines": 5}`,
		Annotations: mcptool.Annotations("List background shells", true, false, true, false),
	}
}

func (h *handlers) listShells(ctx context.Context, req *mcp.CallToolRequest, in ListShellsIn) (*mcp.CallToolResult, ListShellsOut, error) {
	n := 0
	if in.LogLines != nil {
		n = min(max(*in.LogLines, 0), maxLines)
	}
	out := ListShellsOut{Shells: []ListedShell{}}
	seen := map[string]bool{}
	for _, p := range h.m.List() {
		key := p.Name
		if key == "" {
			key = p.ID
		}
		if seen[key] {
			continue // an older run of a label
		}
		seen[key] = true
		e := ListedShell{Shell: h.shell(p)}
		if e.Label == "" {
			e.Label = p.ID
		}
		var older bool
		e.Logs, older = h.lines(p, n)
		if n > 0 && older {
			e.LogHint = fmt.Sprintf("Showing the newest %d lines; check_shell or get_all_loglines show more.", len(e.Logs))
		}
		out.Shells = append(out.Shells, e)
	}
	return nil, out, nil
}
