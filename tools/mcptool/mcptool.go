// Package mcptool holds the two things every tool of both toolsets does the
// same way: declare its hints and answer a mistake the agent can fix. It
// has no state.
package mcptool

import "github.com/modelcontextprotocol/go-sdk/mcp"

// Kind is what a tool does to the world, which decides its hints: one named
// combination per kind, so no hint is left to the protocol's defaults
// (destructive and open-world default to true when absent) and no call site
// lines up four booleans.
type Kind int

const (
	// Reads only looks: read-only and idempotent.
	Reads Kind = iota
	// Runs starts commands, which may do anything: destructive, not
	// idempotent, open world.
	Runs
	// Types sends input to a running process: destructive, not idempotent.
	Types
	// Ends stops or forgets processes: destructive and idempotent.
	Ends
)

// Annotations builds the hints of a tool of kind k.
func Annotations(title string, k Kind) *mcp.ToolAnnotations {
	a := &mcp.ToolAnnotations{Title: title, DestructiveHint: new(k != Reads), OpenWorldHint: new(k == Runs)}
	a.ReadOnlyHint = k == Reads
	a.IdempotentHint = k == Reads || k == Ends
	return a
}

// Error returns out as a tool result marked as an error: the agent sees the
// structured fields and can act on them.
func Error[Out any](out Out) (*mcp.CallToolResult, Out, error) {
	return &mcp.CallToolResult{IsError: true}, out, nil
}
