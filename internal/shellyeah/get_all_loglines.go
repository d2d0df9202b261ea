package shellyeah

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/mcptool"
)

// GetAllLoglinesIn is get_all_loglines's input.
type GetAllLoglinesIn struct {
	Label string `json:"label" jsonschema:"the shell's label"`
}

// GetAllLoglinesOut is get_all_loglines's answer.
type GetAllLoglinesOut struct {
	Ignored
	Label       string   `json:"label"`
	ProcessID   string   `json:"process_id,omitempty"`
	Logs        []string `json:"logs"`
	Message     string   `json:"message"`
	LineCount   int      `json:"line_count"`
	IsTruncated bool     `json:"is_truncated" jsonschema:"older output was dropped (YIELDSHELL_MAX_BUFFER_BYTES are retained; the log file, if any, has everything)"`
	LogFilePath string   `json:"log_file_path,omitempty"`
	Error       string   `json:"error,omitempty"`
}

func getAllLoglinesTool() *mcp.Tool {
	return &mcp.Tool{
		Name:  "get_all_loglines",
		Title: "Get a shell's whole log",
		Description: `Every log line retained for a shell (its newest run), clean text. is_truncated says older output was dropped; log_file_path, when logs go to disk, has all of it.

Example: {"label": "web"}`,
		Annotations: mcptool.Annotations("Get a shell's whole log", mcptool.Reads),
	}
}

func (h *handlers) getAllLoglines(ctx context.Context, req *mcp.CallToolRequest, in GetAllLoglinesIn) (*mcp.CallToolResult, GetAllLoglinesOut, error) {
	p, err := h.lookup(in.Label)
	if err != nil {
		return mcptool.Error(GetAllLoglinesOut{Label: in.Label, Logs: []string{}, Error: sentence(err), Message: sentence(err)})
	}
	out := GetAllLoglinesOut{Label: p.Name, ProcessID: p.ID, LogFilePath: h.m.LogPath(p)}
	out.Logs, out.IsTruncated = h.lines(h.snapshot(p, 0, false))
	out.LineCount = len(out.Logs)
	out.Message = fmt.Sprintf("%d lines.", out.LineCount)
	if out.IsTruncated {
		out.Message += " Older output was dropped."
	}
	return nil, out, nil
}
