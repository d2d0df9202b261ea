package session

import (
	"errors"

	"github.com/yieldshell/yieldshell/internal/policy"
)

// redact returns s with every secret in it replaced.
func redact(secrets []policy.Secret, s string) string { return policy.Redact(secrets, s) }

// redactError returns err with every secret in its text replaced. A
// *policy.Refusal stays one, so callers still learn the rule.
func redactError(secrets []policy.Secret, err error) error {
	msg := redact(secrets, err.Error())
	if msg == err.Error() {
		return err
	}
	if r, ok := errors.AsType[*policy.Refusal](err); ok {
		return &policy.Refusal{Rule: r.Rule, Message: msg, Askable: r.Askable}
	}
	return redactedError{msg: msg, err: err}
}

// redactedError is an error whose text had secrets in it.
type redactedError struct {
	msg string
	err error
}

func (e redactedError) Error() string { return e.msg }
func (e redactedError) Unwrap() error { return e.err }
