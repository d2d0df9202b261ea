package sandbox

import (
	"fmt"
	"strings"
)

// Support is what this kernel offers a sandbox.
type Support struct {
	LandlockABI int  // 0: none
	Seccomp     bool // filters with user notification
	// Seatbelt: macOS's sandbox-exec is there (commands are wrapped in
	// it: SeatbeltArgv; untested here).
	Seatbelt bool

	// compiled holds what Probe prepared once for every start (Linux:
	// the seccomp programs); nil prepares it per start.
	compiled *compiled
}

// Landlock ABIs the sandbox relies on.
const (
	abiWrites = 1 // writes confined to the writable paths
	abiScopes = 6 // no signals or abstract sockets out of the sandbox
)

// Gaps names what the kernel lacks for a confined command: empty when
// everything is enforced.
func (s Support) Gaps() []string {
	if s.Seatbelt {
		return nil // enforced by Seatbelt; denials go to the system log, unnamed
	}
	var g []string
	if !s.Seccomp {
		g = append(g, "seccomp filters with user notification (no_new_privs, containment, network off, denials named)")
	}
	switch {
	case s.LandlockABI < abiWrites:
		g = append(g, "Landlock (writes outside the writable paths)")
	case s.LandlockABI < abiScopes:
		g = append(g, fmt.Sprintf("Landlock ABI %d (signals and abstract sockets out of the sandbox); this kernel has ABI %d", abiScopes, s.LandlockABI))
	}
	return g
}

// Check refuses a policy the kernel cannot enforce, naming what is
// missing, unless the policy is best-effort.
func (s Support) Check(p *Policy) error {
	g := s.Gaps()
	if len(g) == 0 || p.BestEffort {
		return nil
	}
	return fmt.Errorf("sandbox %s cannot be enforced: this kernel lacks %s", p.Mode, strings.Join(g, "; "))
}
