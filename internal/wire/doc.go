// Package wire holds the shapes of yieldshell's tool calls on the wire:
// each tool's input and answer structs, with the JSON names and the schema
// descriptions clients see. The tool handlers (package tools) fill them,
// and the MCP resources and the console (a client of the server's own
// tools) read them, so none of those needs another's code to speak the
// same language. It holds no logic.
package wire
