// Command yieldshell is an MCP server through which agents run and drive
// shell commands, each under its own pseudo-terminal.
//
// Usage:
//
//	yieldshell                     serve MCP over stdin/stdout
//	yieldshell --http ADDR         serve MCP over streamable HTTP (bearer token required)
//	yieldshell call TOOL ['JSON']  run one tool call in process and print the answer
//	yieldshell tools [--json]      list the tools
//	yieldshell --version           print the version
//	yieldshell --help              print usage and every environment variable
//
// On Windows it only prints that Windows is not supported and exits.
package main
