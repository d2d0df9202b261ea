package app

import (
	"context"
	"log/slog"
	"strings"
)

// quietUndelivered lowers to DEBUG the SDK's warning that a notification
// could not be delivered to a session: over HTTP a session whose client
// keeps no GET stream open (most do not, between calls) cannot receive
// one, and each process started or ended notifies every session, so the
// warning came once per process per such session for nothing anyone can
// act on.
type quietUndelivered struct{ slog.Handler }

func (h quietUndelivered) Handle(ctx context.Context, r slog.Record) error {
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
	return quietUndelivered{h.Handler.WithAttrs(as)}
}

func (h quietUndelivered) WithGroup(name string) slog.Handler {
	return quietUndelivered{h.Handler.WithGroup(name)}
}
