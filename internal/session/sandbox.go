package session

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/yieldshell/yieldshell/internal/policy"
	"github.com/yieldshell/yieldshell/internal/sandbox"
	"github.com/yieldshell/yieldshell/pty"
)

// SandboxReport is what a process's answers say about its sandbox.
type SandboxReport struct {
	Mode, Network string
	Gaps          []string // best-effort: what the kernel lacked
	Denied        []sandbox.Denial
}

// sandboxRun is one process's sandbox: its private TMPDIR, the Monitor
// that names its denials and, with a host list, its network jail.
type sandboxRun struct {
	mode, network string
	gaps          []string
	tmp           string
	jail          *jailRun         // a host list's; nil otherwise
	monitor       *sandbox.Monitor // set by the fork (or the jail); nil without seccomp
}

// report returns what answers show; nil when the process is unconfined.
func (r *sandboxRun) report() *SandboxReport {
	if r == nil {
		return nil
	}
	return &SandboxReport{Mode: r.mode, Network: r.network, Gaps: r.gaps,
		Denied: append(r.monitor.Denied(), r.jail.take()...)}
}

// open makes the private TMPDIR and a host list's jail, right before the
// start, and wraps opts in the jail's helper.
func (r *sandboxRun) open(opts *pty.Options) error {
	if r == nil {
		return nil
	}
	if err := os.Mkdir(r.tmp, 0o700); err != nil {
		return fmt.Errorf("creating the sandbox's TMPDIR: %w", err)
	}
	if r.jail == nil {
		return nil
	}
	if err := r.jail.open(opts); err != nil {
		r.close()
		return err
	}
	return nil
}

// started follows a host list's helper once the process started. When it
// fails (the helper failed, and ends the command saying why on its
// stderr; or ctx ended first) the jail is closed at once, so that a
// command that runs anyway has no network and every call the server
// would have answered fails; every answer says so.
func (r *sandboxRun) started(ctx context.Context) {
	if r == nil || r.jail == nil {
		return
	}
	m, err := r.jail.serve(ctx)
	if err != nil {
		r.jail.close()
		r.gaps = append(slices.Clip(r.gaps), err.Error())
		return
	}
	r.monitor = m
}

// close stops naming denials and the network, and removes the TMPDIR.
func (r *sandboxRun) close() {
	if r == nil {
		return
	}
	r.jail.close()
	_ = r.monitor.Close()
	_ = os.RemoveAll(r.tmp)
}

// checkSandbox refuses a configuration the server cannot enforce.
func checkSandbox(cfg *policy.Config, s sandbox.Support) error {
	sb := cfg.Sandbox
	if sb.Mode == policy.SandboxOff {
		return nil
	}
	p := sandbox.Policy{Mode: sb.Mode, BestEffort: sb.Mode == policy.SandboxBestEffort}
	if err := s.Check(&p); err != nil {
		return fmt.Errorf("YIELDSHELL_SANDBOX=%s: %w (YIELDSHELL_SANDBOX=best-effort runs with what there is and says so)", sb.Mode, err)
	}
	return nil
}

// confine sets up l's sandbox when its mode is not off: a private
// TMPDIR (and cache, so builds work), the writable paths and the fork
// hook that confines the child (or, with a host list, the jail whose
// helper confines it).
func (m *Manager) confine(l *launch, spec Spec) error {
	mode, err := m.cfg.Sandbox.Tighten(spec.Sandbox)
	if err != nil || mode == policy.SandboxOff {
		return err
	}
	tmp, err := m.sandboxTmp(l.id)
	if err != nil {
		return fmt.Errorf("creating the sandbox's TMPDIR: %w", err)
	}
	p := &sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, Network: m.sandboxNetwork(), BestEffort: mode == policy.SandboxBestEffort,
		Writable: []string{tmp}, Protected: m.protected()}
	if mode == policy.SandboxReadOnly {
		p.Mode = sandbox.ModeReadOnly
	} else {
		p.Writable = append(p.Writable, m.writableRoots(spec)...)
		p.Writable = append(p.Writable, m.cfg.Sandbox.Writable...)
		if c := m.sandboxCache(); c != "" {
			p.Writable = append(p.Writable, c)
			l.opts.Env = policy.DedupEnv(append(l.opts.Env, "XDG_CACHE_HOME="+c, "GOCACHE="+filepath.Join(c, "go-build"),
				"npm_config_cache="+filepath.Join(c, "npm")))
		}
	}
	l.opts.Env = policy.DedupEnv(append(l.opts.Env, "TMPDIR="+tmp))
	run := &sandboxRun{mode: mode, network: p.Network, tmp: tmp}
	if p.BestEffort {
		run.gaps = m.sandboxSupport.Gaps()
	}
	if m.hostList != nil && m.hostList.gap != "" {
		run.gaps = append(run.gaps, m.hostList.gap)
	}
	l.sandbox = run
	switch {
	case m.sandboxSupport.Seatbelt: // macOS: sandbox-exec applies a profile, then execs the command
		l.opts.Path, l.opts.Args = sandbox.SeatbeltArgv(p, l.opts.Args)
	case p.Network == sandbox.NetworkHosts: // the jail's helper confines the command: open
		run.jail = &jailRun{list: m.hostList, policy: p, support: m.sandboxSupport}
	default:
		l.opts.Confine = func(tty string, fork func() error) error {
			mon, err := sandbox.Start(p, m.sandboxSupport, tty, fork)
			run.monitor = mon
			return err
		}
	}
	return nil
}

// sandboxNetwork is a sandboxed command's network: a host list only where
// its jail works (best-effort runs with the network off otherwise).
func (m *Manager) sandboxNetwork() string {
	switch {
	case m.cfg.Sandbox.Network == policy.NetworkOn:
		return sandbox.NetworkOn
	case m.hostList != nil && m.hostList.gap == "":
		return sandbox.NetworkHosts
	}
	return sandbox.NetworkOff
}

// sandboxTmp names a confined process's private TMPDIR, id, in the
// server's directory of them (made once: NewTempDir reads /proc, which a
// start should not pay for). spawn makes it: a start that policy or the
// process limit refuses after resolve leaves nothing behind.
func (m *Manager) sandboxTmp(id string) (string, error) {
	m.mu.Lock()
	if m.sandboxDir == "" {
		dir, err := NewTempDir("sandbox")
		if err != nil {
			m.mu.Unlock()
			return "", err
		}
		m.sandboxDir = dir
	}
	dir := filepath.Join(m.sandboxDir, id)
	m.mu.Unlock()
	return dir, nil
}

// writableRoots are the roots a workspace-write command may write: the
// operator's allowed cwds, else the client's roots, else the server's
// working directory.
func (m *Manager) writableRoots(spec Spec) []string {
	if len(m.cfg.Cwd.Allowed) > 0 {
		return slices.Clone(m.cfg.Cwd.Allowed)
	}
	if spec.Roots != nil && len(spec.Roots.Paths) > 0 {
		return slices.Clone(spec.Roots.Paths)
	}
	return []string{m.cfg.Cwd.Default}
}

// protected are yieldshell's own files, read-only even inside a root.
func (m *Manager) protected() []string {
	var p []string
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.shellDir != "" {
		p = append(p, m.shellDir)
	}
	if m.cfg.Log.Dir != "" {
		p = append(p, m.cfg.Log.Dir)
	}
	return p
}

// sandboxCache is a cache directory of sandboxed commands' own (go build,
// npm, pip): shared between them so builds stay warm, apart from the
// user's so a sandboxed command cannot poison what runs outside.
func (m *Manager) sandboxCache() string {
	base, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	dir := filepath.Join(base, "yieldshell", "sandbox")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return ""
	}
	return dir
}

// Sandbox reports the process's sandbox and what it was denied so far;
// nil when it runs unconfined.
func (p *Process) Sandbox() *SandboxReport { return p.sandbox.report() }

// SandboxSupport is what the kernel offers a sandbox, for health reports.
func (m *Manager) SandboxSupport() sandbox.Support { return m.sandboxSupport }

// refuseRemoteSandboxed refuses a command on another host where this
// server's sandbox (as spec tightens it) is on: the kernel that would
// confine it is the other host's, and a sandboxed server runs nothing
// unconfined.
func (m *Manager) refuseRemoteSandboxed(spec Spec) error {
	mode, err := m.cfg.Sandbox.Tighten(spec.Sandbox)
	if err != nil || mode == policy.SandboxOff {
		return err
	}
	return &policy.Refusal{Rule: "sandbox", Message: fmt.Sprintf(
		"host %q: the sandbox (%s) confines commands on this machine only, and a command on another host would run unconfined; nothing was started. Ask the operator to run a server with YIELDSHELL_SANDBOX=off for remote hosts (docs/remote.md)",
		spec.Host, mode)}
}
