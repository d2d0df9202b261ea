// Package tools is the MCP surface of yieldshell: one file per tool, each with
// typed input and output structs and a handler, and Register, which lists the
// tool surface in order.
package tools
