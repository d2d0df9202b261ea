package session

import (
	"errors"
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

// sandboxRun is one process's sandbox: its policy, its private TMPDIR
// and the Monitor that names its denials.
type sandboxRun struct {
	mode, network string
	gaps          []string
	policy        *sandbox.Policy  // the fork's; makeTmp adds the TMPDIR
	seatbelt      bool             // macOS: sandbox-exec wraps the command (makeTmp)
	tmp           string           // "" until makeTmp
	monitor       *sandbox.Monitor // set by the fork; nil without seccomp
}

// report returns what answers show; nil when the process is unconfined.
func (r *sandboxRun) report() *SandboxReport {
	if r == nil {
		return nil
	}
	return &SandboxReport{Mode: r.mode, Network: r.network, Gaps: r.gaps, Denied: r.monitor.Denied()}
}

// makeTmp gives the process its private TMPDIR, right before the start
// (a start refused before then leaves none behind): writable, and its
// TMPDIR. On macOS the profile that says so wraps the command.
func (r *sandboxRun) makeTmp(dirs *tmpDirs, opts *pty.Options) error {
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
	return nil
}

// close stops naming denials and removes the TMPDIR.
func (r *sandboxRun) close() {
	if r == nil {
		return
	}
	_ = r.monitor.Close()
	if r.tmp != "" {
		_ = os.RemoveAll(r.tmp)
	}
}

// ErrHostsNeedProxy refuses a host list until the proxy is in the build.
// The proxy plugs in here: start it, and give the command its address.
var ErrHostsNeedProxy = errors.New("YIELDSHELL_SANDBOX_NETWORK: host lists need the proxy: not in this build")

// checkSandbox refuses a configuration the server cannot enforce.
func checkSandbox(cfg *policy.Config, s sandbox.Support) error {
	sb := cfg.Sandbox
	if sb.Network == policy.NetworkHosts { // whatever the mode: a call may tighten to one
		return ErrHostsNeedProxy
	}
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
// hook that confines the child.
func (m *Manager) confine(l *launch, spec Spec) error {
	mode, err := m.cfg.Sandbox.Tighten(spec.Sandbox)
	if err != nil || mode == policy.SandboxOff {
		return err
	}
	network := sandbox.NetworkOff // a host list plugs in here, with the proxy
	if m.cfg.Sandbox.Network == policy.NetworkOn {
		network = sandbox.NetworkOn
	}
	p := &sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, Network: network, BestEffort: mode == policy.SandboxBestEffort,
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
	l.sandbox = run
	if run.seatbelt { // macOS: sandbox-exec applies a profile, then execs the command
		return nil
	}
	l.opts.Confine = func(tty string, fork func() error) error {
		mon, err := sandbox.Start(p, m.sandboxSupport, tty, fork)
		run.monitor = mon
		return err
	}
	return nil
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
