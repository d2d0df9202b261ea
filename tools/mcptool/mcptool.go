// Package mcptool holds the two things every tool of both toolsets does the
// same way: declare its hints and answer a mistake the agent can fix. It
// has no state.
package mcptool

import "github.com/modelcontextprotocol/go-sdk/mcp"

// Annotations builds a tool's hints. Every hint is an argument, so none can
// be left to the protocol's defaults (destructive and open-world default to
// true when absent).
func Annotations(title string, readOnly, destructive, idempotent, openWorld bool) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{
		Title:           title,
		ReadOnlyHint:    readOnly,
		DestructiveHint: &destructive,
		IdempotentHint:  idempotent,
		OpenWorldHint:   &openWorld,
	}
}

// Error returns out as a tool result marked as an error: the agent sees the
// structured fields and can act on them.
func Error[Out any](out Out) (*mcp.CallToolResult, Out, error) {
	return &mcp.CallToolResult{IsError: true}, out, nil
}
