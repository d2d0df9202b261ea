package tools

import (
	"github.com/yieldshell/yieldshell/internal/wire"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/answer"
	"github.com/yieldshell/yieldshell/internal/session"
)

func (h *handlers) health(req *mcp.CallToolRequest) *wire.Health {
	st := h.m.Stats()
	out := &wire.Health{
		Name: "yieldshell", Version: h.version,
		UptimeMs:           millis(time.Since(st.StartedAt)),
		Running:            st.Running,
		Total:              st.Total,
		MaxProcesses:       h.cfg.Limits.Processes,
		MaxOutputBytes:     h.cfg.Limits.OutputBytes,
		MaxBufferBytes:     h.cfg.Limits.BufferBytes,
		BlockedSideEffects: []string{},
		Report:             h.roots.Report(req, h.cfg),
		PurgeAfterMs:       int(h.cfg.Times.PurgeAfter.Milliseconds()),
		LogDir:             h.cfg.Log.Dir,
		Toolset:            h.cfg.Toolset,
	}
	out.Sandbox = answer.SandboxHealth(h.cfg, h.m)
	for _, b := range h.cfg.Rules.Blocked {
		out.BlockedSideEffects = append(out.BlockedSideEffects, string(b))
	}
	if h.cfg.Rules.DenyCommand != nil {
		out.DenyCommandRegex = h.cfg.Rules.DenyCommand.String()
	}
	if h.cfg.Rules.AllowCommand != nil {
		out.AllowCommandRegex = h.cfg.Rules.AllowCommand.String()
	}
	return out
}

func (h *handlers) history(p *session.Process) wire.RunHistory {
	hist := h.m.History(p)
	r := wire.RunHistory{Restarts: hist.Restarts, RestartPending: hist.RestartPending, RunsEvicted: hist.EvictedRuns}
	if e := hist.LastExit; e != nil {
		r.LastExit = &wire.LastExit{ProcessID: e.ProcessID, ExitCode: e.Code, EndedBy: string(e.EndedBy)}
		if e.Signal != "" {
			r.LastExit.Signal = new(e.Signal)
		}
	}
	return r
}
