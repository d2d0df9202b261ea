package session

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/yieldshell/yieldshell/internal/policy"
)

// typedSecretName names a secret typed with wait_for_password in its
// redaction marker.
const typedSecretName = "password"

// secretList is a process's secrets: those of its environment, then every
// secret typed into it (AddSecret). It only grows. The readers' redactors
// and the pipeline's follow it: a reader compares gen with the one it built
// its redactor from before each turn.
type secretList struct {
	gen  atomic.Uint64 // bumped after every addition
	mu   sync.Mutex
	list []policy.Secret
}

func newSecretList(env []policy.Secret) *secretList {
	return &secretList{list: slices.Clip(env)}
}

// get returns the secrets and the generation they belong to. The slice is
// never changed in place: it may be kept.
func (s *secretList) get() ([]policy.Secret, uint64) {
	if s == nil {
		return nil, 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.list, s.gen.Load()
}

// all returns the secrets.
func (s *secretList) all() []policy.Secret {
	l, _ := s.get()
	return l
}

// add adds a typed secret; it reports false if it was known already.
func (s *secretList) add(name, value string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, x := range s.list {
		if x.Value == value {
			return false
		}
	}
	// A new array: readers may hold the old one.
	s.list = append(slices.Clip(s.list), policy.Secret{Name: name, Value: value})
	s.gen.Add(1)
	return true
}

// typedSecrets returns the values to redact for input typed as a secret:
// each line of it, without its line ending (a program that echoes the
// secret echoes it line by line; the ending is not part of it).
func typedSecrets(input string) []string {
	var out []string
	for line := range strings.FieldsFuncSeq(input, func(r rune) bool { return r == '\r' || r == '\n' }) {
		out = append(out, line)
	}
	return out
}

// AddSecret makes every view of p's output redact the secret in input from
// now on: the log (and with it the disk log and every answer), the
// rendered screen and the prompt text. Call it before typing the secret, so
// that its echo, if the program prints one, is already redacted.
//
// A secret of any length is redacted: one of 1 to 3 characters also hides
// every other occurrence of those characters in the process's later output
// (typing "42" turns "1425" into "1[REDACTED:password]5"). Output stays safe
// and becomes harder to read; asking the person instead avoids it.
func (p *Process) AddSecret(input string) {
	p.addSecrets(typedSecretName, typedSecrets(input)...)
}

// addSecrets redacts values, named name in the marker, from every view of
// p's output from now on: the readers' redactors follow the list's
// generation, the cleaned text's redactor is reset here.
func (p *Process) addSecrets(name string, values ...string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	added := false
	for _, v := range values {
		if v != "" && p.out.secrets.add(name, v) {
			added = true
		}
	}
	if added && p.out.redactor != nil {
		p.out.redactor.Reset(p.out.secrets.all())
	}
}
