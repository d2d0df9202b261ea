// Command yieldshell is an MCP server through which agents run and drive
// shell commands, each under its own pseudo-terminal.
//
// Usage:
//
//	yieldshell                     serve MCP over stdin/stdout
//	yieldshell --http ADDR         serve MCP over streamable HTTP (bearer token required)
//	yieldshell call TOOL ['JSON']  run one tool call in process and print the answer
//	yieldshell tools [--json]      list the tools
//	yieldshell --persist           bridge stdin/stdout to the per-user persistent server
//	yieldshell server start|stop|status|run
//	yieldshell ps | logs ID [-f] | attach ID [--watch]
//	yieldshell --version           print the version
//	yieldshell --help              print usage and every environment variable
//
// With --persist (or YIELDSHELL_PERSIST=1) the stdio process copies MCP
// bytes to a background server of the same binary (server.go), which owns
// the processes and outlives its clients: one Manager and one MCP server,
// one MCP session per connection on a Unix socket in a private per-user
// directory (rundir.go), admitted by peer uid (peercred*.go). A one-line
// JSON hello and welcome precede MCP on each connection (versions, stop,
// status); persist.go is the client side (starting the server under a
// lock, stopping it, the bridge). people.go and attach.go are ps, logs and
// attach, MCP clients of that server.
//
// On Windows it only prints that Windows is not supported and exits.
package main
