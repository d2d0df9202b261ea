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

// sandboxRun is one process's sandbox: its policy, its private TMPDIR,
// the Monitor that names its denials and, with a host list, its network
// jail.
type sandboxRun struct {
	mode, network string
	gaps          []string
	policy        *sandbox.Policy  // the fork's (or the jail's); open adds the TMPDIR
	seatbelt      bool             // macOS: sandbox-exec wraps the command (open)
	tmp           string           // "" until open
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

// open gives the process its private TMPDIR and a host list's jail,
// right before the start (a start refused before then leaves none
// behind): the TMPDIR joins the writable paths and the environment, and
// opts is wrapped in what applies the policy (the jail's helper;
// sandbox-exec on macOS).
func (r *sandboxRun) open(dirs *tmpDirs, opts *pty.Options) error {
	if r == nil {
		return nil
	}
	tmp, err := dirs.take()
	if err != nil {
		return err
	}
	r.tmp = tmp
	r.policy.Writable = append(r.policy.Writable, tmp)
	opts.Env = policy.DedupEnv(append(opts.Env, "TMPDIR="+tmp))
	if r.seatbelt {
		opts.Path, opts.Args = sandbox.SeatbeltArgv(r.policy, opts.Args)
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
	if r.tmp != "" {
		_ = os.RemoveAll(r.tmp)
	}
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

// confine sets up l's sandbox when its mode is not off: the writable
// paths (the private TMPDIR joins them at open, right before the start),
// a build cache so builds work, and the fork hook that confines the child
// (or, with a host list, the jail whose helper confines it).
func (m *Manager) confine(l *launch, spec Spec) error {
	mode, err := m.cfg.Sandbox.Tighten(spec.Sandbox)
	if err != nil || mode == policy.SandboxOff {
		return err
	}
	p := &sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, Network: m.sandboxNetwork(), BestEffort: mode == policy.SandboxBestEffort,
		Protected: m.protected()}
	if mode == policy.SandboxReadOnly {
		p.Mode = sandbox.ModeReadOnly
	} else {
		p.Writable = append(p.Writable, m.writableRoots(spec)...)
		p.Writable = append(p.Writable, m.cfg.Sandbox.Writable...)
		if len(spec.Writable) > 0 {
			m.log.Info("starting a sandboxed command the user allowed to write more, this run only", "paths", spec.Writable)
			p.Writable = append(p.Writable, spec.Writable...)
		}
		p.Writable = append(p.Writable, m.AllowedWrites()...)
		if c := m.sandboxCache(); c != "" {
			p.Writable = append(p.Writable, c)
			l.opts.Env = policy.DedupEnv(append(l.opts.Env, "XDG_CACHE_HOME="+c, "GOCACHE="+filepath.Join(c, "go-build"),
				"npm_config_cache="+filepath.Join(c, "npm")))
		}
	}
	run := &sandboxRun{mode: mode, network: p.Network, policy: p, seatbelt: m.sandboxSupport.Seatbelt}
	if p.BestEffort {
		run.gaps = m.sandboxSupport.Gaps()
	}
	if m.hostList != nil && m.hostList.gap != "" {
		run.gaps = append(run.gaps, m.hostList.gap)
	}
	l.sandbox = run
	switch {
	case run.seatbelt: // macOS: sandbox-exec applies a profile, then execs the command (open)
	case p.Network == sandbox.NetworkHosts: // the jail's helper confines the command: open
		run.jail = &jailRun{list: m.hostList, policy: p, support: m.sandboxSupport}
		if spec.ConnectApprover != nil {
			run.jail.approve = spec.ConnectApprover(policy.Redact(l.secrets, spec.Command))
		}
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

// Sandbox reports the process's sandbox and what it was denied so far,
// its secrets redacted from the paths (a program names them); nil when it
// runs unconfined.
func (p *Process) Sandbox() *SandboxReport {
	r := p.sandbox.report()
	if r == nil {
		return nil
	}
	secrets := p.out.secrets.all()
	for i := range r.Denied {
		r.Denied[i].Path = policy.Redact(secrets, r.Denied[i].Path)
	}
	return r
}

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
