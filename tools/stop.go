package tools

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/session"
)

// StopIn is stop's input.
type StopIn struct {
	ProcessID    string `json:"process_id" jsonschema:"the process_id from exec"`
	Signal       string `json:"signal,omitempty" jsonschema:"signal to send first (default SIGTERM), e.g. SIGINT, SIGHUP, SIGKILL"`
	ForceAfterMs *int   `json:"force_after_ms,omitempty" jsonschema:"grace period before SIGKILL, in ms (default 3000)"`
}

// StopOut is stop's answer.
type StopOut struct {
	ProcessID string  `json:"process_id" jsonschema:"the process_id stopped"`
	Stopped   bool    `json:"stopped" jsonschema:"the process and its group are gone"`
	Signal    string  `json:"signal,omitempty" jsonschema:"the signal sent first"`
	Forced    bool    `json:"forced,omitempty" jsonschema:"SIGKILL was needed after the grace period"`
	Status    string  `json:"status,omitempty" jsonschema:"the process status after the stop (stopped once it is gone)"`
	ExitCode  *int    `json:"exit_code,omitempty" jsonschema:"exit status once it ended (-N for signal N)"`
	Error     *string `json:"error" jsonschema:"why stopping failed, or null"`
}

func stopTool() *mcp.Tool {
	return &mcp.Tool{
		Name:  "stop",
		Title: "Stop a process",
		Description: `Stop a running process and everything in its process group: send signal (default SIGTERM), wait up to force_after_ms (default 3000) for it to end, then send SIGKILL. stopped says whether the process is really gone.

Example: {"process_id": "proc_1a2b3c4d5e6f", "signal": "SIGINT", "force_after_ms": 2000}

Signal names are case-insensitive, with or without SIG (INT, sigterm); an unknown name is refused and nothing is sent.`,
		Annotations: annotations("Stop a process", false, true, true, false),
	}
}

func (h *handlers) stop(ctx context.Context, req *mcp.CallToolRequest, in StopIn) (*mcp.CallToolResult, StopOut, error) {
	fail := func(msg string) (*mcp.CallToolResult, StopOut, error) {
		return toolError(StopOut{ProcessID: in.ProcessID, Signal: in.Signal, Error: &msg})
	}
	p, err := h.m.Get(in.ProcessID)
	if err != nil {
		return fail(unknownProcess(in.ProcessID))
	}
	name := in.Signal
	if name == "" {
		name = "SIGTERM"
	}
	sig, err := session.ParseSignal(name)
	if err != nil {
		return fail(err.Error())
	}
	grace := 3 * time.Second
	if in.ForceAfterMs != nil {
		grace = time.Duration(*in.ForceAfterMs) * time.Millisecond
	}
	grace = min(max(grace, 0), maxWait)
	res, err := p.Stop(ctx, sig, grace, session.EndedByStop)
	if err != nil {
		return fail(sentence(err))
	}
	info := p.Info()
	out := StopOut{ProcessID: p.ID, Stopped: res.Gone, Signal: session.SignalName(sig), Forced: res.Killed, Status: string(info.Status), ExitCode: info.ExitCode}
	if !res.Gone {
		msg := "the process group did not end even after SIGKILL; it may be stuck in the kernel (state D). Check ps later"
		out.Error = &msg
		return &mcp.CallToolResult{IsError: true}, out, nil
	}
	return nil, out, nil
}
