package session

import (
	"errors"
	"os/exec"
	"slices"
	"strings"

	"github.com/yieldshell/yieldshell/internal/policy"
)

// checkPolicy applies policy without the rules a person waived for this
// start, and returns the cwd to start in.
func (m *Manager) checkPolicy(spec Spec, secrets []policy.Secret) (string, error) {
	cwd, err := m.admit(spec, secrets)
	if err != nil {
		return "", err
	}
	if len(spec.Waived) > 0 {
		m.log.Info("starting a command the user approved", "rules", spec.Waived,
			"command", policy.Redact(secrets, spec.Command), "cwd", cwd)
	}
	return cwd, nil
}

// admit is the one sequence of policy checks a start meets, in the spec's
// order: side effects, command regexes (less the rules spec waives), the
// environment they cannot see, cwd (and, for an approved start, that it is
// still the directory the person was shown). It returns the cwd to start
// in, or the first refusal.
func (m *Manager) admit(spec Spec, secrets []policy.Secret) (string, error) {
	cfg := m.cfg.WithRoots(spec.Roots).Waive(spec.Waived...)
	if err := cfg.CheckSideEffects(spec.SideEffects); err != nil {
		return "", err
	}
	if err := cfg.CheckCommand(spec.Command, secrets...); err != nil {
		return "", err
	}
	// Never waived: a person allowing a command the regex refused did not
	// allow what the regex cannot see (BASH_ENV, PATH, LD_PRELOAD).
	if err := m.cfg.CheckEnv(spec.Env); err != nil {
		return "", err
	}
	cwd, err := cfg.ResolveCwd(spec.Cwd)
	if err != nil {
		return "", err
	}
	return cwd, spec.ShownCwd.check(cwd)
}

// Asking is what a person is asked to allow: the refusals a start meets
// that they may waive, and everything that decides what would run — the
// command, the directory (resolved), the shell (resolved), the environment
// overrides ("NAME=value", sorted) and the declared side effects — redacted
// as answers are. Dir is the directory itself, for Spec.ShownCwd.
type Asking struct {
	Refusals     []*policy.Refusal
	Command, Cwd string
	Shell        string
	Env          []string
	SideEffects  []string
	Stdin        string
	Dir          *ShownDir
}

// Rules names the refusals' rules, for Spec.Waived.
func (a Asking) Rules() []string {
	rules := make([]string, len(a.Refusals))
	for i, r := range a.Refusals {
		rules[i] = r.Rule
	}
	return rules
}

// Askable says what a person would have to allow for spec to start: the
// policy refusals it meets, in the order policy checks them, as long as
// each may be waived (policy.Refusal.Askable). err is the first refusal
// that may not be (or another failure); nil when, with the askable ones
// waived, policy lets the command start. Nothing is started or reserved;
// the process limit is not looked at.
func (m *Manager) Askable(spec Spec) (Asking, error) {
	secrets := m.cfg.Secrets(m.baseSecrets, overlayEnv(spec.Env))
	a := Asking{Command: policy.Redact(secrets, spec.Command), SideEffects: spec.SideEffects,
		Stdin: policy.Redact(secrets, spec.Stdin)}
	for k, v := range spec.Env {
		a.Env = append(a.Env, policy.Redact(secrets, k+"="+v))
	}
	slices.Sort(a.Env)
	// What no person may waive is refused before anyone is asked.
	if err := m.cfg.CheckEnv(spec.Env); err != nil {
		return a, policy.RedactError(secrets, err)
	}
	a.Shell = m.cfg.DefaultShell()
	if s := strings.TrimSpace(spec.Shell); s != "" {
		shell, err := exec.LookPath(s)
		if err == nil {
			err = m.cfg.CheckShell(shell)
		}
		if err != nil {
			return a, policy.RedactError(secrets, err)
		}
		a.Shell = shell
	}
	a.Shell = policy.Redact(secrets, a.Shell)
	spec.Waived = slices.Clone(spec.Waived)
	for {
		cwd, err := m.admit(spec, secrets)
		if err == nil {
			a.Cwd = policy.Redact(secrets, cwd)
			a.Dir, err = shownDir(cwd)
		}
		if err == nil {
			return a, nil
		}
		err = policy.RedactError(secrets, err)
		r, ok := errors.AsType[*policy.Refusal](err)
		if !ok || !r.Askable || slices.Contains(spec.Waived, r.Rule) {
			return a, err
		}
		a.Refusals = append(a.Refusals, r)
		spec.Waived = append(spec.Waived, r.Rule)
	}
}
