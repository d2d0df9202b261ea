package mcptool

import (
	"context"
	"log/slog"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A panicking handler becomes an error answer; the server lives on.
func TestRecoverPanics(t *testing.T) {
	h := RecoverPanics(slog.New(slog.DiscardHandler))(func(context.Context, string, mcp.Request) (mcp.Result, error) {
		panic("boom")
	})
	res, err := h(t.Context(), "tools/call", nil)
	if r, ok := res.(*mcp.CallToolResult); err != nil || !ok || !r.IsError {
		t.Errorf("tools/call panic: %v, %v", res, err)
	}
	if _, err := h(t.Context(), "tools/list", nil); err == nil {
		t.Error("a panic in another method was not turned into an error")
	}
}
