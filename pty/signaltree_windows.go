package pty

import "syscall"

// SignalTree sends sig to the command's job: every descendant is in it,
// detached or not, so the tag is not needed to find them.
func (p *Process) SignalTree(sig syscall.Signal, _, _ string) error { return p.Signal(sig) }
