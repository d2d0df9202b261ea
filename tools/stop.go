package tools

import (
	"context"
	"errors"
	"github.com/yieldshell/yieldshell/internal/wire"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/mcptool"
	"github.com/yieldshell/yieldshell/internal/session"
)

func stopTool() *mcp.Tool {
	return &mcp.Tool{
		Name:  "stop",
		Title: "Stop a process",
		Description: `Stop a running process and everything in its process group: send signal (default SIGTERM), wait up to force_after_ms (default 3000) for it to end, then send SIGKILL. stopped says whether the process is really gone. What the command left running in the background after it exited ("cmd &", daemons) is part of it: stop reaches it with the same grace.

Example: {"process_id": "proc_1a2b3c4d5e6f", "signal": "SIGINT", "force_after_ms": 2000}

Signal names are case-insensitive, with or without SIG (INT, sigterm); an unknown name is refused and nothing is sent. all: true stops every running process at once instead, e.g. {"all": true}. Stopping never triggers a crash restart; stopping a name whose crash restart is pending cancels it.`,
		Annotations: mcptool.Annotations("Stop a process", mcptool.Ends),
	}
}

func (h *handlers) stop(ctx context.Context, req *mcp.CallToolRequest, in wire.StopIn) (*mcp.CallToolResult, wire.StopOut, error) {
	fail := func(msg string) (*mcp.CallToolResult, wire.StopOut, error) {
		return mcptool.Error(wire.StopOut{ProcessID: in.ProcessID, Signal: in.Signal, Error: &msg})
	}
	if in.All == (in.ProcessID != "") {
		return fail("give either process_id (or a name) or all: true")
	}
	var p *session.Process
	if !in.All {
		var err error
		if p, err = h.m.Get(in.ProcessID); err != nil {
			return fail(unknownProcess(in.ProcessID))
		}
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
		grace = mcptool.Millis(*in.ForceAfterMs)
	}
	grace = min(max(grace, 0), maxWait)
	if in.All {
		return h.stopAll(ctx, sig, grace)
	}
	res, err := p.Stop(ctx, sig, grace, session.EndedByStop)
	if errors.Is(err, session.ErrNotRunning) && h.m.CancelRestart(p) {
		info := p.Info()
		return nil, wire.StopOut{ProcessID: p.ID, Name: p.Name, Stopped: true, Status: string(info.Status), ExitCode: info.ExitCode}, nil
	}
	if err != nil {
		return fail(sentence(err))
	}
	info := p.Info()
	out := wire.StopOut{ProcessID: p.ID, Stopped: res.Gone, Signal: session.SignalName(sig), Forced: res.Killed, Status: string(info.Status), ExitCode: info.ExitCode}
	if !res.Gone {
		msg := "the process group did not end even after SIGKILL; it may be stuck in the kernel (state D). Check ps later"
		out.Error = &msg
		return &mcp.CallToolResult{IsError: true}, out, nil
	}
	return nil, out, nil
}
