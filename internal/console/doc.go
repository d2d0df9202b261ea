// Package console holds the commands for a person at a terminal, each an
// MCP client the way an agent is one: ps, logs and attach, views of what
// the persistent server runs (console.go, attach.go); server start, stop
// and status, and the --persist bridge to that server (persistent.go);
// and call and tools, which ask a server in this process (call.go).
//
// Every command takes the request's ctx first and ends when it is done;
// attach owns the goroutines that copy the terminal and joins them.
package console
