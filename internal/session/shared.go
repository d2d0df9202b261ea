package session

import (
	"slices"

	"github.com/yieldshell/yieldshell/internal/policy"
)

// personSecrets are the secrets people typed on a secret page, for every
// process of the Manager: the process that read one may have handed it on
// (a file, a pipe), and any other command of the agent's could print it
// (issue 38). The Manager keeps them, for processes started later, until it
// ends. Guarded by the Manager's lock.
type personSecrets []string

// sharePersonSecret redacts secret from every process's output from now
// on: those registered now, and (through personSecretList) every later
// one.
func (m *Manager) sharePersonSecret(secret string) {
	m.mu.Lock()
	if !slices.Contains(m.typed, secret) {
		m.typed = append(m.typed, secret)
	}
	procs := slices.Clone(m.reg.order)
	m.mu.Unlock()
	for _, p := range procs {
		p.addSecrets(humanSecretName, secret)
	}
}

// personSecretList is the person's secrets as policy secrets, for a new
// process's list.
func (m *Manager) personSecretList() []policy.Secret {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]policy.Secret, len(m.typed))
	for i, v := range m.typed {
		out[i] = policy.Secret{Name: humanSecretName, Value: v}
	}
	return out
}
