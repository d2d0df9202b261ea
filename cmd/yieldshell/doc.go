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
// Package main is the table of subcommands and the wiring: flags and the
// environment become a policy.Config, an app.App (the MCP server over the
// process manager) is built and served on stdio, over HTTP (package
// httpserve) or, as the persistent server, on a Unix socket (package
// daemon). main.go holds the table and the stdio and HTTP modes;
// persist.go the persistent server's modes and the commands for a person
// (package console: ps, logs, attach, server start|stop|status, call,
// tools).
//
// On Windows it only prints that Windows is not supported and exits.
package main
