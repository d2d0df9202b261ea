package tools

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/answer"
	"github.com/yieldshell/yieldshell/internal/askhuman"
	"github.com/yieldshell/yieldshell/internal/mcptool"
	"github.com/yieldshell/yieldshell/internal/session"
	"github.com/yieldshell/yieldshell/internal/wire"
)

// askHumanDescription is shared with shell-yeah's ask_human.
const askHumanDescription = `Ask the user (the person you work for) to answer a program themselves, on a one-time web page, instead of you.

Prefer ask_human for any secret the user has not given you: a sudo, ssh, gpg or database password, a passphrase, a token a program prompts for. Never ask the user to paste a password into the chat. With secret: true the program must be waiting for a password now (input_kind "password"); the user types it on the page, it goes straight into the program's terminal, and it never reaches you, the output, the logs or the transcript.

With secret: false the user gets the whole terminal, its live screen and keyboard, until they press Done: for a login, a 2FA code, an interactive installer, anything only they can answer. Meanwhile your write to the process is refused.

If your client supports URL elicitation it shows the page to the user itself, and the call answers when they are done (yield_reason human_done, human_declined or human_left) with the program's reply, as write with yield_ms would. Otherwise, or when the client could not put the page to a person (it cancelled or failed; message says which), it answers at once with url: show that link to the user, do not open it yourself, and call wait on the process: wait answers with yield_reason human_done (or human_declined, human_left) once they are done.

Example: {"process_id": "proc_1a2b3c4d5e6f", "message": "sudo asks for your password to install the build dependencies", "secret": true}`

func askHumanTool() *mcp.Tool {
	return &mcp.Tool{
		Name:        "ask_human",
		Title:       "Ask the user to answer a program",
		Description: askHumanDescription,
		Annotations: mcptool.Annotations("Ask the user to answer a program", mcptool.Types),
	}
}

func (h *handlers) askHuman(ctx context.Context, req *mcp.CallToolRequest, in wire.AskHumanIn) (*mcp.CallToolResult, wire.AskHumanOut, error) {
	var a askhuman.Answer
	if req.Params.RequestState != "" {
		a = h.human.Resume(ctx, req)
	} else {
		p, err := h.m.Get(in.ProcessID)
		if err != nil {
			return mcptool.Error(wire.AskHumanOut{ProcessID: in.ProcessID, Error: unknownProcess(in.ProcessID)})
		}
		var timeout time.Duration
		if in.TimeoutMs != nil {
			timeout = max(mcptool.Millis(*in.TimeoutMs), time.Millisecond)
		}
		a = h.human.Ask(ctx, req, p, askhuman.Request{Message: in.Message, Secret: in.Secret, Timeout: timeout})
		if a.Process == nil {
			a.Process = p
		}
	}
	out := wire.AskHumanOut{ProcessID: in.ProcessID}
	if a.Process != nil {
		out.ProcessID = a.Process.ID
	}
	switch {
	case a.Pending != nil:
		return a.Pending, wire.AskHumanOut{}, nil
	case a.Refused != "":
		out.Error = a.Refused
		if a.Input != nil && a.Input.Reason == session.ReasonInputWait {
			out.InputOut = answer.Input(a.Input.Input)
		}
		return mcptool.Error(out)
	case a.URL != "":
		out.URL = a.URL
		if a.Unasked != "" {
			out.Message = a.Unasked + ". "
		}
		out.Message += "Show this link to the user and tell them what it is for; do not open it yourself. It works once and expires. Then call wait on " + out.ProcessID + ": it answers with yield_reason human_done (or human_declined, human_left) when they are done."
		return nil, out, nil
	}
	p := a.Process
	o := h.Answer(p, session.Query{Since: &a.Before, MaxBytes: h.Cap(nil), Streams: session.Both})
	out = wire.AskHumanOut{
		ProcessID: p.ID, YieldReason: string(a.Outcome), Status: o.Status, ExitCode: o.ExitCode, Signal: o.Signal,
		Stdout: o.Stdout, Stderr: o.Stderr, NextSeq: o.NextSeq, Truncated: o.Truncated,
		EndedBy: o.EndedBy, InputOut: o.InputOut, Screen: o.Screen,
	}
	if r := a.Reply.Reason; r == session.ReasonInputWait || r == session.ReasonReady {
		out.InputOut = answer.Input(a.Reply.Input)
	}
	return nil, out, nil
}
