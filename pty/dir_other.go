//go:build unix && !linux

package pty

// pinDir gives the child dir itself: without /proc there is no name for
// an open directory to chdir to before exec, so a component swapped for a
// symbolic link between the policy check and the child's chdir can still
// redirect it (docs/policy.md).
func pinDir(dir string) (string, func(), error) { return dir, func() {}, nil }
