// Package toolhost is what a server that builds its own process manager
// hands the public tools package (tools.Add): the manager, configuration
// and people the tools answer with. yieldshell's own server fills a Host
// with Use; a program outside the module cannot name one, so to it
// tools.Add is a constructor with a handful of public options.
package toolhost

import (
	"github.com/yieldshell/yieldshell/internal/askhuman"
	"github.com/yieldshell/yieldshell/internal/policy"
	"github.com/yieldshell/yieldshell/internal/roots"
	"github.com/yieldshell/yieldshell/internal/session"
)

// Host is what the tools are added with. A zero Host makes tools.Add
// build its own: the configuration from Getenv (os.Getenv when nil) and
// a Manager that runs commands on this machine.
type Host struct {
	Manager *session.Manager
	Config  *policy.Config
	Version string              // reported by ps and health_check
	Getenv  func(string) string // the YIELDSHELL_* settings, when Config is nil
	Human   *askhuman.Human     // ask_human's pages and approvals; nil: none
	Roots   *roots.Tracker      // each client session's roots; nil: none
}

// Use has the tools answer with a server's own Manager and configuration,
// and ask its people and roots (either may be nil).
func Use(m *session.Manager, cfg *policy.Config, version string, human *askhuman.Human, rt *roots.Tracker) func(*Host) {
	return func(h *Host) {
		h.Manager, h.Config, h.Version, h.Human, h.Roots = m, cfg, version, human, rt
	}
}
