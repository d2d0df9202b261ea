package session

import (
	"errors"
	"slices"

	"github.com/yieldshell/yieldshell/internal/policy"
)

// checkPolicy applies policy without the rules a person waived for this
// start, and returns the cwd to start in.
func (m *Manager) checkPolicy(spec Spec, secrets []policy.Secret) (string, error) {
	cwd, err := admit(m.cfg.WithRoots(spec.Roots).Waive(spec.Waived...), spec, secrets)
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
// order: side effects, command regexes, the environment they cannot see,
// cwd. It returns the cwd to start in, or the first refusal.
func admit(cfg *policy.Config, spec Spec, secrets []policy.Secret) (string, error) {
	if err := cfg.CheckSideEffects(spec.SideEffects); err != nil {
		return "", err
	}
	if err := cfg.CheckCommand(spec.Command, secrets...); err != nil {
		return "", err
	}
	if err := cfg.CheckEnv(spec.Env); err != nil {
		return "", err
	}
	return cfg.ResolveCwd(spec.Cwd)
}

// Asking is what a person is asked to allow: the refusals a start meets
// that they may waive, and the command and directory (resolved) it would
// run with, redacted as answers are.
type Asking struct {
	Refusals     []*policy.Refusal
	Command, Cwd string
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
	secrets := m.cfg.Secrets(m.baseEnv, overlayEnv(spec.Env))
	a := Asking{Command: policy.Redact(secrets, spec.Command)}
	spec.Waived = slices.Clone(spec.Waived)
	for {
		cwd, err := admit(m.cfg.WithRoots(spec.Roots).Waive(spec.Waived...), spec, secrets)
		if err == nil {
			a.Cwd = policy.Redact(secrets, cwd)
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
