package policy

import (
	"fmt"
	"path/filepath"
	"strings"
)

// The client's roots (issue 34 item 5). A client may say which
// directories it works in (MCP roots, file:// URIs; package roots parses
// and resolves them). The operator decides what they are used for:
//
//   - With no YIELDSHELL_DEFAULT_CWD, the first client root (the first one
//     inside YIELDSHELL_ALLOWED_CWDS when that lists paths) is the default
//     working directory; the server's own working directory otherwise.
//   - YIELDSHELL_ALLOWED_CWDS=roots confines every command's cwd to the
//     client's roots. A client that declares no roots, answers with none
//     or none that resolve, or whose roots are not known yet, gets every
//     command refused, saying why (fail closed).
//
// Explicit settings win: a YIELDSHELL_DEFAULT_CWD the operator set is the
// default whatever the client says, and paths listed in
// YIELDSHELL_ALLOWED_CWDS are the roots in force, not the client's.
// Confining to the client's roots trusts the client to name them: it keeps
// a careless agent in the project it was opened on, not a hostile client
// away from the rest of the machine (only the operator's paths do that).

// RootsKeyword is the value of YIELDSHELL_ALLOWED_CWDS that confines
// commands to the client's roots.
const RootsKeyword = "roots"

// Where the roots and the default working directory in force come from.
const (
	FromOperator  = "operator"     // YIELDSHELL_DEFAULT_CWD or YIELDSHELL_ALLOWED_CWDS set to paths
	FromClient    = "client_roots" // the client's roots
	FromServerCwd = "server_cwd"   // the directory the server was started in
	FromNone      = "none"         // no confinement: any directory
)

// Roots is what one client said its roots are, resolved: the input to
// [Config.WithRoots]. A nil *Roots is a connection that cannot say (the
// persistent server's socket, the seed protocol, one CLI call).
type Roots struct {
	// Paths are existing directories, absolute, symlinks resolved,
	// without duplicates, in the client's order.
	Paths []string
	// Missing says, when Paths is empty, why there are none; a sentence
	// for the agent ("the client declared no roots capability").
	Missing string
}

// UsesRoots reports whether the client's roots change anything: when the
// operator set neither YIELDSHELL_DEFAULT_CWD nor paths in
// YIELDSHELL_ALLOWED_CWDS, or confined commands to the roots.
func (c *Config) UsesRoots() bool { return c.Cwd.FromRoots || !c.Cwd.ExplicitDefault }

// NeedsRoots reports whether a start with this cwd depends on the client's
// roots: always when confined to them; otherwise only when cwd is empty or
// relative (the default cwd, or its base, may be the first root). A call
// that does not need them need not wait or ask for them.
func (c *Config) NeedsRoots(cwd string) bool {
	return c.Cwd.FromRoots || !c.Cwd.ExplicitDefault && !filepath.IsAbs(cwd)
}

// WithRoots returns the configuration in force for a client whose roots are
// r: c itself when they change nothing. See the package comment above for
// the rules.
func (c *Config) WithRoots(r *Roots) *Config {
	if !c.UsesRoots() {
		return c
	}
	w := *c
	w.Cwd.rootsApplied = true
	if r != nil && !c.Cwd.ExplicitDefault {
		for _, p := range r.Paths {
			if len(c.Cwd.Allowed) == 0 || within(p, c.Cwd.Allowed) {
				w.Cwd.Default, w.Cwd.defaultFromRoots = p, true
				break
			}
		}
	}
	if c.Cwd.FromRoots {
		switch {
		case r == nil:
			w.Cwd.Allowed, w.Cwd.noRoots = nil, "this connection cannot tell the server its roots"
		case len(r.Paths) == 0:
			w.Cwd.Allowed, w.Cwd.noRoots = nil, r.Missing
			if w.Cwd.noRoots == "" {
				w.Cwd.noRoots = "the client named no roots"
			}
		default:
			w.Cwd.Allowed = r.Paths
		}
	}
	return &w
}

// CwdSources says where the default working directory and the allowed
// roots in force come from (FromOperator, FromClient, FromServerCwd,
// FromNone), for ps and health_check.
func (c *Config) CwdSources() (defaultFrom, allowedFrom string) {
	defaultFrom = FromServerCwd
	switch {
	case c.Cwd.ExplicitDefault:
		defaultFrom = FromOperator
	case c.Cwd.defaultFromRoots:
		defaultFrom = FromClient
	}
	allowedFrom = FromNone
	switch {
	case c.Cwd.FromRoots:
		allowedFrom = FromClient
	case len(c.Cwd.Allowed) > 0:
		allowedFrom = FromOperator
	}
	return defaultFrom, allowedFrom
}

// checkRoots refuses every cwd while commands are confined to roots the
// client has not named.
func (c *Config) checkRoots() error {
	if !c.Cwd.FromRoots {
		return nil
	}
	why := c.Cwd.noRoots
	if !c.Cwd.rootsApplied {
		why = "the client's roots are not known"
	}
	if why == "" {
		return nil
	}
	return askable("cwd", fmt.Sprintf("no directory is allowed: the operator confined commands to the client's roots "+
		"(%s=%s), and %s. Nothing was started. Open the client on a project folder (or add one as a root), "+
		"or ask the operator to list directories in %s.", envAllowedCwds, RootsKeyword, strings.TrimSuffix(why, "."), envAllowedCwds))
}
