// Package mcptool holds the two things every tool of both toolsets does the
// same way: declare its hints and answer a mistake the agent can fix. It
// has no state.
package mcptool

import "github.com/modelcontextprotocol/go-sdk/mcp"

// The presets name the four kinds of tool the toolsets have. Each sets every
// hint, so none is left to the protocol's defaults (destructive and
// open-world default to true when absent).

// ReadOnly is for a tool that only looks: it changes nothing, and asking
// twice is asking once.
func ReadOnly(title string) *mcp.ToolAnnotations {
	return hints(title, hint{readOnly: true, idempotent: true})
}

// RunsCommands is for a tool that starts commands: anything can happen,
// also outside this machine, and each call starts another.
func RunsCommands(title string) *mcp.ToolAnnotations {
	return hints(title, hint{destructive: true, openWorld: true})
}

// SendsInput is for a tool that hands input to a running program: the
// program may do anything with it, and each call sends it again.
func SendsInput(title string) *mcp.ToolAnnotations {
	return hints(title, hint{destructive: true})
}

// Ends is for a tool that stops processes or forgets them: destructive,
// and doing it twice is doing it once.
func Ends(title string) *mcp.ToolAnnotations {
	return hints(title, hint{destructive: true, idempotent: true})
}

// Annotations builds a tool's hints from every hint as an argument.
//
// Deprecated: use a preset ([ReadOnly], [RunsCommands], [SendsInput],
// [Ends]); this stays until tools/shellyeah has moved to them.
func Annotations(title string, readOnly, destructive, idempotent, openWorld bool) *mcp.ToolAnnotations {
	return hints(title, hint{readOnly: readOnly, destructive: destructive, idempotent: idempotent, openWorld: openWorld})
}

type hint struct{ readOnly, destructive, idempotent, openWorld bool }

func hints(title string, h hint) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{
		Title:           title,
		ReadOnlyHint:    h.readOnly,
		DestructiveHint: new(h.destructive),
		IdempotentHint:  h.idempotent,
		OpenWorldHint:   new(h.openWorld),
	}
}

// Error returns out as a tool result marked as an error: the agent sees the
// structured fields and can act on them.
func Error[Out any](out Out) (*mcp.CallToolResult, Out, error) {
	return &mcp.CallToolResult{IsError: true}, out, nil
}
