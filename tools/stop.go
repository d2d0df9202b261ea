package tools

import (
	"context"
	"errors"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/mcptool"
	"github.com/yieldshell/yieldshell/internal/session"
)

// StopIn is stop's input.
type StopIn struct {
	ProcessID    string `json:"process_id,omitempty" jsonschema:"the process_id from exec, or the process's name; required unless all is true"`
	All          bool   `json:"all,omitempty" jsonschema:"stop every running process (and cancel pending crash restarts), all at once; results lists each outcome"`
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
	Name      string  `json:"name,omitempty" jsonschema:"the process's name"`
	// With all: one entry per process that was running.
	Results []StopEntry `json:"results,omitempty" jsonschema:"with all: each process that was running and its outcome"`
}

// StopEntry is one process's outcome in a stop with all.
type StopEntry struct {
	ProcessID string  `json:"process_id" jsonschema:"the process stopped"`
	Name      string  `json:"name,omitempty" jsonschema:"its name"`
	Stopped   bool    `json:"stopped" jsonschema:"it and its group are gone"`
	Forced    bool    `json:"forced,omitempty" jsonschema:"SIGKILL was needed"`
	Status    string  `json:"status" jsonschema:"its status after the stop"`
	ExitCode  *int    `json:"exit_code" jsonschema:"its exit status, or null"`
	Error     *string `json:"error,omitempty" jsonschema:"why stopping it failed"`
}

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

func (h *handlers) stop(ctx context.Context, req *mcp.CallToolRequest, in StopIn) (*mcp.CallToolResult, StopOut, error) {
	fail := func(msg string) (*mcp.CallToolResult, StopOut, error) {
		return mcptool.Error(StopOut{ProcessID: in.ProcessID, Signal: in.Signal, Error: &msg})
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
		grace = ms(*in.ForceAfterMs)
	}
	grace = min(max(grace, 0), maxWait)
	if in.All {
		return h.stopAll(ctx, sig, grace)
	}
	res, err := p.Stop(ctx, sig, grace, session.EndedByStop)
	if errors.Is(err, session.ErrNotRunning) && h.m.CancelRestart(p) {
		info := p.Info()
		return nil, StopOut{ProcessID: p.ID, Name: p.Name, Stopped: true, Status: string(info.Status), ExitCode: info.ExitCode}, nil
	}
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
