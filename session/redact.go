package session

import "github.com/yieldshell/yieldshell/policy"

// redact returns s with every secret in it replaced.
func redact(secrets []policy.Secret, s string) string {
	if len(secrets) == 0 || s == "" {
		return s
	}
	r := policy.NewRedactor(secrets)
	return string(r.Flush(r.Write(nil, []byte(s))))
}
