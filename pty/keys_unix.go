//go:build unix

package pty

import "syscall"

// pipeKeys are the keys that mean something without a terminal: what its
// line discipline would have done with them.
var pipeKeys = map[byte]syscall.Signal{0x03: syscall.SIGINT, 0x1a: syscall.SIGTSTP, 0x1c: syscall.SIGQUIT}
