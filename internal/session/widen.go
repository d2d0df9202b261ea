package session

import (
	"slices"

	"github.com/yieldshell/yieldshell/internal/policy"
	"github.com/yieldshell/yieldshell/internal/sandbox"
)

// Widening is what a person may allow after a sandboxed command was
// denied writes (issue 40 item 4): the paths to make writable
// (sandbox.Widen says which for each denial) and the denials they answer,
// with what the person is shown of the command.
type Widening struct {
	Paths   []string // distinct, in the order of the denials
	Denied  []sandbox.Denial
	Mode    string
	Command string // redacted, as answers show it
	Cwd     string
}

// Widenable returns what a person may allow after p's write denials; no
// Paths when nothing may be offered: p is unconfined or its sandbox is
// not workspace-write (read-only writes nowhere, whoever asks), or none of
// its denials is a write Widen offers. Containment and network denials
// are never offered, nor a path that holds one of the process's secrets.
func (m *Manager) Widenable(p *Process) Widening {
	run := p.sandbox
	if run == nil || run.mode != policy.SandboxWorkspaceWrite && run.mode != policy.SandboxBestEffort {
		return Widening{}
	}
	keep := m.protected()
	if dir := m.tmps.parent(); dir != "" {
		keep = append(keep, dir) // every command's private TMPDIR
	}
	secrets := p.out.secrets.all()
	w := Widening{Mode: run.mode, Command: p.Command, Cwd: policy.Redact(secrets, p.Cwd)}
	for _, d := range run.monitor.Denied() {
		if d.Path == "" || policy.Redact(secrets, d.Path) != d.Path {
			continue // a path holding a secret could not be shown
		}
		target, ok := sandbox.Widen(d.Op, d.Path, keep)
		if !ok {
			continue
		}
		w.Denied = append(w.Denied, d)
		if !slices.Contains(w.Paths, target) {
			w.Paths = append(w.Paths, target)
		}
	}
	return w
}

// AllowWrites lets every later sandboxed command of the Manager write
// paths (a person allowed them for the session), as if they were in
// YIELDSHELL_SANDBOX_WRITABLE.
func (m *Manager) AllowWrites(paths []string) {
	m.log.Info("the user allowed every later sandboxed command to write", "paths", paths)
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, p := range paths {
		if !slices.Contains(m.allowedWrites, p) {
			m.allowedWrites = append(m.allowedWrites, p)
		}
	}
}

// AllowedWrites returns the paths AllowWrites added, for health reports.
func (m *Manager) AllowedWrites() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.allowedWrites)
}
