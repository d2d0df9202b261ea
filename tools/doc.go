// Package tools adds yieldshell's MCP tools to a go-sdk server: exec runs
// a command under a pseudo-terminal or pipes and answers when it finishes,
// waits for input or has run long enough; read, write, wait, stop, ps,
// cleanup, restart and ask_human drive it from there. It is for a Go
// program that serves MCP and wants its agents to run shell commands the
// way the yieldshell command lets them: Add is the whole of it.
//
// Inside, one file per tool holds its description and handler; the
// shapes on the wire are in internal/wire and the answers about a
// process in internal/answer, which the server's MCP resources share.
package tools
