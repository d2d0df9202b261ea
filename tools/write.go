package tools

import (
	"context"
	"errors"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/session"
)

// writeTimeout bounds a write to a process that does not read its input.
const writeTimeout = 10 * time.Second

// WriteIn is write's input.
type WriteIn struct {
	ProcessID  string `json:"process_id" jsonschema:"the process_id from exec"`
	Input      string `json:"input" jsonschema:"text to send, as typed at the keyboard"`
	Newline    bool   `json:"newline,omitempty" jsonschema:"press Enter after the input (default false)"`
	CloseStdin bool   `json:"close_stdin,omitempty" jsonschema:"end the input after writing (EOF; Ctrl-D at the start of a line in PTY mode)"`
	Cols       *int   `json:"cols,omitempty" jsonschema:"resize the terminal to this many columns (with rows; the program gets SIGWINCH)"`
	Rows       *int   `json:"rows,omitempty" jsonschema:"resize the terminal to this many rows (with cols)"`
}

// WriteOut is write's answer.
type WriteOut struct {
	ProcessID string `json:"process_id" jsonschema:"the process_id written to"`
	OK        bool   `json:"ok" jsonschema:"the input was delivered"`
	Error     string `json:"error,omitempty" jsonschema:"why the input was not delivered and what to do instead"`
}

func writeTool() *mcp.Tool {
	return &mcp.Tool{
		Name:  "write",
		Title: "Send input to a process",
		Description: `Send text to a running process's input, as if typed at its terminal (or written to its stdin pipe with tty: false). Set newline to press Enter after it. Then read (with since_seq) or wait to see the reaction.

Example: {"process_id": "proc_1a2b3c4d5e6f", "input": "yes", "newline": true}

In PTY mode newline sends a carriage return, what the Enter key sends; control characters can be sent as they are (e.g. "\u0003" for Ctrl-C). A write that the process does not accept within 10 s fails. cols and rows resize the terminal (input may then be empty).`,
		Annotations: annotations("Send input to a process", false, true, false, false),
	}
}

func (h *handlers) write(ctx context.Context, req *mcp.CallToolRequest, in WriteIn) (*mcp.CallToolResult, WriteOut, error) {
	p, err := h.m.Get(in.ProcessID)
	if err != nil {
		return toolError(WriteOut{ProcessID: in.ProcessID, Error: unknownProcess(in.ProcessID)})
	}
	if in.Cols != nil || in.Rows != nil {
		if in.Cols == nil || in.Rows == nil || *in.Cols < 2 || *in.Rows < 2 || *in.Cols > 1000 || *in.Rows > 1000 {
			return toolError(WriteOut{ProcessID: p.ID, Error: "resizing needs both cols and rows, each from 2 to 1000"})
		}
		if err := p.Resize(uint16(*in.Cols), uint16(*in.Rows)); err != nil {
			return toolError(WriteOut{ProcessID: p.ID, Error: "resizing the terminal: " + err.Error()})
		}
	}
	data := in.Input
	if in.Newline {
		if p.TTY {
			data += "\r"
		} else {
			data += "\n"
		}
	}
	ctx, cancel := context.WithTimeout(ctx, writeTimeout)
	defer cancel()
	if err := p.Write(ctx, []byte(data), in.CloseStdin); err != nil {
		msg := err.Error()
		switch {
		case errors.Is(err, session.ErrNotRunning):
			msg = sentence(err) + "; read or wait show its output"
		case errors.Is(err, context.DeadlineExceeded):
			msg = "the process did not accept input within 10s; it may not be reading (see read)"
		}
		return toolError(WriteOut{ProcessID: p.ID, Error: msg})
	}
	return nil, WriteOut{ProcessID: p.ID, OK: true}, nil
}
