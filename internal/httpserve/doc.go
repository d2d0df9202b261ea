// Package httpserve serves an MCP server over streamable HTTP (--http):
// the /mcp endpoint and /metrics behind a bearer token, /healthz open to
// all, and the healthcheck command that asks it.
//
// It owns what an HTTP listener needs to stay safe on a shared machine:
// the address rule (loopback unless a token is configured), the token
// file's checks (tokenfile*.go: who could have written or replaced it),
// the caps on connections and MCP sessions, and the timeouts. It imports
// nothing of ours but policy's Var, so the app hands it the MCP server and
// the metrics handlers.
//
// Concurrency: [Server.Serve] owns the http.Server and its goroutine, and
// joins it before it returns.
package httpserve
