package shellyeah

import (
	"context"
	"errors"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/mcptool"
	"github.com/yieldshell/yieldshell/internal/session"
)

// SendInputIn is send_input's input.
type SendInputIn struct {
	Label         string `json:"label" jsonschema:"the shell's label"`
	Input         string `json:"input" jsonschema:"text to type into the shell"`
	AppendNewline *bool  `json:"append_newline,omitempty" jsonschema:"press Enter after the input (default true)"`
}

func sendInputTool() *mcp.Tool {
	return &mcp.Tool{
		Name:  "send_input",
		Title: "Send input to a shell",
		Description: `Type input into a running shell's terminal (Enter pressed after it unless append_newline is false), wait for its reaction to go quiet (at most 2 s), and answer as check_shell does. The input itself is not stored anywhere; only what the terminal echoes reaches the log.

Example: {"label": "setup", "input": "yes"}`,
		Annotations: mcptool.Annotations("Send input to a shell", mcptool.Types),
	}
}

func (h *handlers) sendInput(ctx context.Context, req *mcp.CallToolRequest, in SendInputIn) (*mcp.CallToolResult, CheckOut, error) {
	p, err := h.lookup(in.Label)
	if err != nil {
		return mcptool.Error(CheckOut{Shell: Shell{Label: in.Label, Status: "not_found", Args: []string{}}, Logs: []string{}, Error: sentence(err)})
	}
	data := in.Input
	if in.AppendNewline == nil || *in.AppendNewline {
		data += "\r"
	}
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := p.Write(wctx, []byte(data), false); err != nil {
		out := h.check(p, defaultLines)
		out.Error = sentence(err)
		switch {
		case errors.Is(err, session.ErrNotRunning):
			out.Error += "; check_shell shows how it ended, restart_shell starts it again"
		case errors.Is(err, context.DeadlineExceeded):
			out.Error = "the shell did not accept input within 10 s; it may not be reading"
		}
		return mcptool.Error(out)
	}
	p.Await(ctx, time.Now().Add(inputMax), session.Until{Quiet: inputQuiet})
	return nil, h.check(p, defaultLines), nil
}
