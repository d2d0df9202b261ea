package shellyeah

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/policy"
	"github.com/yieldshell/yieldshell/session"
)

// Register adds the mcp-shell-yeah tools to s.
func Register(s *mcp.Server, m *session.Manager, cfg *policy.Config, version string) {
}
