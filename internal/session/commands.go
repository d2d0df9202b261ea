package session

// Commands an integrated shell runs: the exit codes its D marks carry, and
// whether it has taken all the input written to it.

// CommandExits returns the exit codes of the commands an integrated shell
// finished since the last write, in the order they finished: those the
// write submitted, and those that were running when it came. nil when
// none finished.
func (p *Process) CommandExits() []int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.in.cmds.since(p.in.wrote.exits)
}
