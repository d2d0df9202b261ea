// Package conformance is the end-to-end suite: it builds the yieldshell binary
// and drives it over stdio with the go-sdk client, the way an MCP client does,
// at both the legacy (initialize) and the SDK's default protocol version. It
// imports no package of this module.
//
// Each test names the statement it checks on a "Spec:" line: 0.4.0 is the
// mcp-yieldshell README (shared/seeds/000_*), shell-yeah the mcp-shell-yeah
// README (shared/seeds/002_*), DESIGN is shared/DESIGN.md and README this
// repository's README.
package conformance
