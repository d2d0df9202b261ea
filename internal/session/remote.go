package session

import (
	"context"
	"errors"
	"fmt"
	"path"
	"regexp"

	"github.com/yieldshell/yieldshell/internal/policy"
	"github.com/yieldshell/yieldshell/pty"
)

// Hosts reaches other hosts: for each, the engine that starts commands
// there and the prober that asks its kernel (package remote's, over an
// executor). local is the Manager asking, which starts the connection
// itself as one of its processes (ssh asks its questions there).
type Hosts interface {
	Host(ctx context.Context, host string, local *Manager) (Engine, Prober, error)
	Close() error
}

// ErrNoHosts refuses a Spec.Host where the Manager has no Hosts.
var ErrNoHosts = errors.New("starting on another host: this server runs commands on its own machine only")

// hostPattern is what a host may be: an ssh destination ([user@]host,
// a name from the user's ssh config) that cannot be taken for an option
// and that an id can carry.
var hostPattern = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._@-]{0,127}$`)

// CheckHost refuses a host that is not a plain ssh destination.
func CheckHost(host string) error {
	if !hostPattern.MatchString(host) {
		return fmt.Errorf("checking host %q: an ssh destination is [user@]host or a name from your ssh config (letters, digits, . _ - @, not starting with -)", host)
	}
	return nil
}

// remoteShell runs a command line on another host where the spec names
// no shell: the executor falls back to sh where it has no bash.
const remoteShell = "bash"

// resolveRemote is resolve for a command on spec.Host: the same policy,
// except that the cwd is the other host's (absolute, or "" for the
// user's home there), and the environment is only what the Manager adds
// and the caller's overlay: the executor lays it over its own. The id and
// the name say the host.
func (m *Manager) resolveRemote(spec Spec, secrets []policy.Secret) (*launch, error) {
	if m.hosts == nil {
		return nil, ErrNoHosts
	}
	if err := CheckHost(spec.Host); err != nil {
		return nil, err
	}
	if err := m.refuseRemoteSandboxed(spec); err != nil {
		return nil, err
	}
	cfg := m.cfg.Waive(spec.Waived...)
	if err := cfg.CheckSideEffects(spec.SideEffects); err != nil {
		return nil, err
	}
	if err := cfg.CheckCommand(spec.Command, secrets...); err != nil {
		return nil, err
	}
	if err := m.cfg.CheckEnv(spec.Env); err != nil {
		return nil, err
	}
	if spec.Cwd != "" && !path.IsAbs(spec.Cwd) {
		return nil, fmt.Errorf("checking cwd %q on %s: a directory on another host must be absolute", spec.Cwd, spec.Host)
	}
	if err := m.sizeScreen(&spec); err != nil {
		return nil, err
	}
	shell := spec.Shell
	if shell == "" {
		shell = remoteShell
	}
	l := &launch{spec: spec, id: newID() + "@" + spec.Host, host: spec.Host, secrets: secrets}
	tag := m.tag + l.id
	env := environ(nil, spec, tag)
	argv, env := policy.CommandArgv(shell, spec.Command, false, spec.TTY, env, "")
	l.opts = pty.Options{Path: argv.Path, Args: argv.Args, Dir: spec.Cwd, Env: env, TTY: spec.TTY, Cols: spec.Cols, Rows: spec.Rows}
	l.ss = &startSpec{Spec: spec, cwd: spec.Cwd, tag: tag, timeout: spec.Timeout, releaseSlot: m.release, timing: &m.timing,
		sharePersonSecret: m.sharePersonSecret, lateOutput: m.lateOutput}
	l.ss.Command = policy.Redact(secrets, spec.Command)
	l.ss.Name = policy.Redact(secrets, spec.Name)
	return l, nil
}

// hostEngine connects to host (or reuses its connection).
func (m *Manager) hostEngine(ctx context.Context, host string) (Engine, Prober, error) {
	e, pr, err := m.hosts.Host(ctx, host, m)
	if err != nil {
		return nil, nil, fmt.Errorf("starting on %s: %w", host, err)
	}
	return e, pr, nil
}
