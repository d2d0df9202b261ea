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
// bytes to a background server of the same binary, which owns the
// processes and outlives its clients: package daemon serves it and is its
// client. main.go holds the table of subcommands; persist.go the bridge
// and the server subcommands, and wires ps, logs and attach (package
// console, MCP clients of that server); cli.go is call and tools.
//
// On Windows it only prints that Windows is not supported and exits.
package main
