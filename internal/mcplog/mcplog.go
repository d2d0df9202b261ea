// Package mcplog is the server's slog handler: records go to stderr and,
// as MCP logging notifications, to the clients that asked for them.
package mcplog

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// teeHandler sends server log records to stderr (at the operator's level)
// and to every connected client as MCP logging notifications, at the level
// each client set with logging/setLevel. Clients that set none get nothing.
type teeHandler struct {
	stderr slog.Handler
	srv    *mcp.Server
	// json renders a record's message and attributes as the notification's
	// data; buf is its output, guarded by mu (shared by clones).
	mu   *sync.Mutex
	buf  *bytes.Buffer
	json slog.Handler
}

// NewHandler returns a handler that sends records to stderr and to srv's
// clients (see teeHandler).
func NewHandler(stderr slog.Handler, srv *mcp.Server) *teeHandler {
	buf := new(bytes.Buffer)
	return &teeHandler{
		stderr: stderr, srv: srv, mu: new(sync.Mutex), buf: buf,
		json: slog.NewJSONHandler(buf, &slog.HandlerOptions{
			Level: slog.LevelDebug,
			ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
				if len(groups) == 0 && (a.Key == slog.LevelKey || a.Key == slog.TimeKey) {
					return slog.Attr{} // the notification carries the level
				}
				return a
			},
		}),
	}
}

// Enabled lets a record through when stderr wants it or a client might:
// each session filters by its own level when the record is sent.
func (h *teeHandler) Enabled(ctx context.Context, l slog.Level) bool {
	if h.stderr.Enabled(ctx, l) {
		return true
	}
	for range h.srv.Sessions() {
		return true
	}
	return false
}

func (h *teeHandler) Handle(ctx context.Context, r slog.Record) error {
	var err error
	if h.stderr.Enabled(ctx, r.Level) {
		err = h.stderr.Handle(ctx, r)
	}
	var data json.RawMessage
	for ss := range h.srv.Sessions() {
		if data == nil {
			h.mu.Lock()
			h.buf.Reset()
			if h.json.Handle(ctx, r) == nil {
				data = json.RawMessage(bytes.TrimSpace(bytes.Clone(h.buf.Bytes())))
			}
			h.mu.Unlock()
			if data == nil {
				break
			}
		}
		// Log drops what is below the session's level, and everything
		// until the client sets one.
		_ = ss.Log(ctx, &mcp.LoggingMessageParams{Logger: "yieldshell", Level: mcpLevel(r.Level), Data: data})
	}
	return err
}

func (h *teeHandler) WithAttrs(as []slog.Attr) slog.Handler {
	c := *h
	c.stderr, c.json = h.stderr.WithAttrs(as), h.json.WithAttrs(as)
	return &c
}

func (h *teeHandler) WithGroup(name string) slog.Handler {
	c := *h
	c.stderr, c.json = h.stderr.WithGroup(name), h.json.WithGroup(name)
	return &c
}

// mcpLevel maps a slog level to the MCP (syslog) level names.
func mcpLevel(l slog.Level) mcp.LoggingLevel {
	switch {
	case l < slog.LevelInfo:
		return "debug"
	case l < slog.LevelWarn:
		return "info"
	case l < slog.LevelError:
		return "warning"
	default:
		return "error"
	}
}
