package roots

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/policy"
)

// StatusUnused: the operator set both the default cwd and the allowed
// paths, so the client's roots are not asked for.
const StatusUnused = "unused"

// Report is where a session's commands may run and why: the working
// directory part of ps and health_check.
type Report struct {
	DefaultCwd        string   `json:"default_cwd" jsonschema:"where a command without cwd runs, and the base of a relative cwd"`
	DefaultCwdFrom    string   `json:"default_cwd_from" jsonschema:"operator (YIELDSHELL_DEFAULT_CWD), client_roots (the client's first root) or server_cwd (the server's own directory)"`
	AllowedCwds       []string `json:"allowed_cwds,omitempty" jsonschema:"the roots in force: a command's cwd must be inside one of them"`
	AllowedCwdsFrom   string   `json:"allowed_cwds_from" jsonschema:"operator (YIELDSHELL_ALLOWED_CWDS lists them), client_roots (YIELDSHELL_ALLOWED_CWDS=roots: the client's roots; none means every command is refused) or none (any directory)"`
	ClientRoots       []string `json:"client_roots,omitempty" jsonschema:"the directories the client named as its roots (MCP roots), resolved"`
	ClientRootsStatus string   `json:"client_roots_status" jsonschema:"known, pending (asked, no answer yet), not_asked (asked by the first command), failed, not_declared (the client has no roots capability), unavailable (this connection cannot have roots) or unused (the operator chose both the default cwd and the allowed roots)"`
}

// Report says what cfg and the roots of req's session put in force now,
// without asking or waiting.
func (t *Tracker) Report(req *mcp.CallToolRequest, cfg *policy.Config) Report {
	st := State{Status: StatusUnused}
	if cfg.UsesRoots() {
		st = t.Known(req)
	}
	c := cfg.WithRoots(st.Roots)
	r := Report{DefaultCwd: c.Cwd.Default, AllowedCwds: c.Cwd.Allowed, ClientRootsStatus: st.Status}
	r.DefaultCwdFrom, r.AllowedCwdsFrom = c.CwdSources()
	if st.Roots != nil {
		r.ClientRoots = st.Roots.Paths
	}
	return r
}
