package session

import "syscall"

// signalTree sends sig to the command's job: every descendant is in it,
// detached or not, so the tag is not needed to find them.
func (p *Process) signalTree(sig syscall.Signal) error { return p.proc.Signal(sig) }
