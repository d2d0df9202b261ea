package app

import (
	"context"
	"log/slog"
	"strings"
	"sync"
)

// sdkGate closes the SDK's log at shutdown: the SDK sends list-changed
// notifications from timers of its own, which nobody can join, and one
// that finds its session gone warns after the server has stopped (after
// `yieldshell call` has returned, into a writer its caller owns again).
// A write in progress when it closes finishes first.
type sdkGate struct {
	mu     sync.Mutex
	closed bool
}

func (g *sdkGate) close() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
}

// quietUndelivered lowers to DEBUG the SDK's warning that a notification
// could not be delivered to a session: over HTTP a session whose client
// keeps no GET stream open (most do not, between calls) cannot receive
// one, and each process started or ended notifies every session, so the
// warning came once per process per such session for nothing anyone can
// act on.
type quietUndelivered struct {
	slog.Handler
	gate *sdkGate
}

func (h quietUndelivered) Handle(ctx context.Context, r slog.Record) error {
	h.gate.mu.Lock()
	defer h.gate.mu.Unlock()
	if h.gate.closed {
		return nil
	}
	if r.Level == slog.LevelWarn && strings.HasPrefix(r.Message, "calling notifications/") &&
		(strings.Contains(r.Message, "undelivered message") || strings.Contains(r.Message, "closed stream")) {
		if !h.Enabled(ctx, slog.LevelDebug) {
			return nil
		}
		r.Level = slog.LevelDebug
	}
	return h.Handler.Handle(ctx, r)
}

func (h quietUndelivered) WithAttrs(as []slog.Attr) slog.Handler {
	return quietUndelivered{h.Handler.WithAttrs(as), h.gate}
}

func (h quietUndelivered) WithGroup(name string) slog.Handler {
	return quietUndelivered{h.Handler.WithGroup(name), h.gate}
}
