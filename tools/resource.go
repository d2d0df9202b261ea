package tools

import (
	"github.com/yieldshell/yieldshell/internal/policy"
	"github.com/yieldshell/yieldshell/internal/session"
	"github.com/yieldshell/yieldshell/internal/wire"
)

// Reader gives a process's log and screen as read gives them, for the
// MCP resources that serve them (package resources): a resources/read and
// a read call answer from the same snapshot machinery, so they agree
// field for field, redaction, omissions and binary output included.
type Reader struct{ h *handlers }

// NewReader returns the Reader of a server whose tools answer under cfg.
func NewReader(m *session.Manager, cfg *policy.Config) *Reader {
	return &Reader{h: &handlers{m: m, cfg: cfg}}
}

// Log is read's answer about p's log after since (nil: the newest output),
// and the snapshot it was made from, whose Stdout and Stderr are, where
// the answer says binary, the exact stored bytes of the same slice of the
// log (binary output included; the answer's text leaves it out), for a
// blob.
func (r *Reader) Log(p *session.Process, since *int64) (wire.OutputOut, session.Snapshot) {
	out, s := r.h.readLog(p, since, nil, session.Both, true)
	if len(s.Binary) > 0 {
		s.Stdout, s.Stderr = s.RawStdout, s.RawStderr
	}
	return out, s
}

// Screen is read's answer with view "screen"; false for a process without
// a terminal.
func (r *Reader) Screen(p *session.Process, since *int64) (wire.OutputOut, bool) {
	return r.h.readScreen(p, since, session.Both)
}
