// Package conformance is the end-to-end suite: it builds the yieldshell binary
// and drives it over stdio with the go-sdk client, the way an MCP client does,
// at both the legacy (initialize) and the SDK's default protocol version. It
// imports no package of this module.
package conformance
