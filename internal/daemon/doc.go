// Package daemon is the opt-in persistent per-user server and its client.
//
// The server is one MCP server over one process manager that outlives its
// clients: each client connects to a Unix socket in a private per-user
// runtime directory ([RuntimeDir]), is admitted by its peer uid, says a
// one-line JSON [Hello] and gets a one-line JSON [Welcome]; after an
// accepted "mcp" hello the connection carries MCP (newline-delimited
// JSON-RPC) unchanged. [Server] serves the socket; [Client] dials it,
// starts the server in the background under a lock when none runs, stops
// it, and [Client.Bridge] copies a stdio client's bytes to it.
package daemon
