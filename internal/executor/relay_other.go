//go:build !unix

package executor

import "errors"

// relay needs Unix sockets and exec.
func relay(string, []string) error { return errors.New("relay: not on this system") }
