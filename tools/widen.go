package tools

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/askhuman"
	"github.com/yieldshell/yieldshell/internal/mcptool"
	"github.com/yieldshell/yieldshell/internal/session"
	"github.com/yieldshell/yieldshell/internal/wire"
)

// execKept is exec's answer about a command its sandbox denied writes,
// kept while the person is asked whether to allow them (askhuman's
// sandbox.go): the retry returns it as it was unless they do.
type execKept struct {
	res *mcp.CallToolResult
	out wire.ExecOut
}

// execEnded is exec's answer out about p, or, when p ended within a
// first call after its sandbox denied writes a person may allow, the
// question to them (askhuman.AskWiden), keeping out for a retry they do not
// allow. A rerun they allowed says so (w.Note) and asks nothing more.
func (h *handlers) execEnded(req *mcp.CallToolRequest, spec session.Spec, p *session.Process, out wire.ExecOut,
	w askhuman.Widened, rerun bool) (*mcp.CallToolResult, wire.ExecOut, error) {
	if w.Note != "" {
		out.Notes = append(out.Notes, w.Note)
	}
	res := mcptool.Linked(mcptool.LogLink(p.ID, p.Name))
	if rerun || out.Status == statusBackgrounded || out.Sandbox == nil || len(out.Sandbox.Denied) == 0 {
		return res, out, nil
	}
	if ask := h.human.AskWiden(req, h.cfg, h.m, spec, p, execKept{res: res, out: out}); ask != nil {
		return ask, wire.ExecOut{}, nil // YIELDSHELL_ASK: the user decides on the denials
	}
	return res, out, nil
}

// keptAnswer is the retry's answer when the person did not allow the
// writes: the first answer unchanged, or the refusal of a retry that
// differs from the call shown.
func keptAnswer(w askhuman.Widened) (*mcp.CallToolResult, wire.ExecOut, error) {
	if w.Refused != nil {
		return mcptool.Error(startFailure(w.Refused))
	}
	k, _ := w.First.(execKept)
	return k.res, k.out, nil
}

// connectApprover lets a held connect of a host-list sandbox be put to
// the person who answers for req's client (askhuman's connect.go): one
// approver per run of the command.
func (h *handlers) connectApprover(req *mcp.CallToolRequest) func(string) func(context.Context, string, uint16) bool {
	return func(command string) func(context.Context, string, uint16) bool {
		return h.human.ConnectApprover(h.cfg, askhuman.ConnectAsk{Session: req.Session, Command: command})
	}
}
