package main

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A panicking handler becomes an error answer; the server lives on.
func TestRecoverPanics(t *testing.T) {
	h := recoverPanics(slog.New(slog.DiscardHandler))(func(context.Context, string, mcp.Request) (mcp.Result, error) {
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

func TestEnvBool(t *testing.T) {
	for v, want := range map[string]bool{"": false, "0": false, "off": false, "1": true, "TRUE": true, " yes ": true, "on": true} {
		got, err := envBool(persistEnv, func(string) string { return v })
		if err != nil || got != want {
			t.Errorf("envBool(%q) = %v, %v; want %v", v, got, err, want)
		}
	}
	if _, err := envBool(persistEnv, func(string) string { return "maybe" }); err == nil || !strings.Contains(err.Error(), persistEnv) {
		t.Errorf("envBool(maybe): %v, want an error naming %s", err, persistEnv)
	}
}
