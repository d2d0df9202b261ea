package policy

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
)

// Sandbox modes (YIELDSHELL_SANDBOX; exec's sandbox), loosest first.
const (
	SandboxOff            = "off"
	SandboxBestEffort     = "best-effort" // workspace-write with what the kernel offers
	SandboxWorkspaceWrite = "workspace-write"
	SandboxReadOnly       = "read-only"
)

// Network settings of a sandbox (YIELDSHELL_SANDBOX_NETWORK).
const (
	NetworkOff   = "off"
	NetworkOn    = "on"
	NetworkHosts = "hosts" // only the listed hosts, through the proxy
)

const (
	envSandbox         = "YIELDSHELL_SANDBOX"          // extension
	envSandboxWritable = "YIELDSHELL_SANDBOX_WRITABLE" // extension
	envSandboxNetwork  = "YIELDSHELL_SANDBOX_NETWORK"  // extension
)

// Sandbox is how commands are confined by the kernel (package sandbox).
type Sandbox struct {
	Mode     string   // SandboxOff, SandboxBestEffort, SandboxWorkspaceWrite or SandboxReadOnly
	Writable []string // extra writable paths, absolute
	Network  string   // NetworkOff, NetworkOn or NetworkHosts
	Hosts    []string // NetworkHosts: the list's entries, lowercased (netproxy.Parse reads them)
}

// Tighten returns the stricter of the server's mode and a call's asked
// mode ("" keeps the server's). A call can never loosen: asking for a
// looser mode than the server's is refused.
func (s Sandbox) Tighten(asked string) (string, error) {
	if asked == "" {
		return s.Mode, nil
	}
	order := []string{SandboxOff, SandboxBestEffort, SandboxWorkspaceWrite, SandboxReadOnly}
	a, have := slices.Index(order, asked), slices.Index(order, s.Mode)
	if a < 0 || asked == SandboxBestEffort {
		return "", refuse("sandbox", fmt.Sprintf("sandbox %q: want %s or %s (tightens the server's %s; nothing was started)",
			asked, SandboxWorkspaceWrite, SandboxReadOnly, s.Mode))
	}
	if a < have {
		return "", refuse("sandbox", fmt.Sprintf("sandbox %q would loosen the server's %s: a call may only tighten it; nothing was started", asked, s.Mode))
	}
	if asked == SandboxWorkspaceWrite && s.Mode == SandboxBestEffort {
		return s.Mode, nil // as tight as the kernel allows already
	}
	return asked, nil
}

func (l *loader) sandbox() Sandbox {
	s := Sandbox{Mode: SandboxOff, Network: NetworkOff}
	if v, ok := l.value(envSandbox); ok {
		switch m := strings.ToLower(v); m {
		case SandboxOff, SandboxBestEffort, SandboxWorkspaceWrite, SandboxReadOnly:
			s.Mode = m
		default:
			l.fail(envSandbox, v, "want %s, %s, %s or %s (default %s)", SandboxOff, SandboxReadOnly, SandboxWorkspaceWrite,
				SandboxBestEffort, SandboxOff)
		}
	}
	if v, ok := l.value(envSandboxWritable); ok {
		for _, part := range filepath.SplitList(v) {
			if part = strings.TrimSpace(part); part == "" {
				continue
			}
			p, err := filepath.Abs(filepath.Join(l.base, part))
			if filepath.IsAbs(part) {
				p, err = filepath.Clean(part), nil
			}
			if err != nil {
				l.fail(envSandboxWritable, v, "path %q: %v", part, err)
				continue
			}
			s.Writable = append(s.Writable, p)
		}
	}
	s.Network, s.Hosts = l.network()
	return s
}

// network reads YIELDSHELL_SANDBOX_NETWORK: off, on, or a list of hosts
// (host, host:port, *.domain, an address or prefix) separated by commas or
// white space. What is not plainly a URL or user@host is left to the
// server's start, which parses the list whole (package netproxy).
func (l *loader) network() (string, []string) {
	v, ok := l.value(envSandboxNetwork)
	if !ok {
		return NetworkOff, nil
	}
	switch m := strings.ToLower(v); m {
	case NetworkOff, NetworkOn:
		return m, nil
	}
	var hosts []string
	for _, h := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || unicode.IsSpace(r) }) {
		h = strings.ToLower(h)
		if strings.Contains(h, "://") || strings.ContainsAny(h, "@?#") {
			l.fail(envSandboxNetwork, v, "host %q: want off, on, or hosts like example.com, *.example.com, example.com:443 or 10.0.0.0/8 separated by commas", h)
			return NetworkOff, nil
		}
		hosts = append(hosts, h)
	}
	return NetworkHosts, hosts
}
