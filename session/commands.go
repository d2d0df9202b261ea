package session

import "github.com/yieldshell/yieldshell/prompt"

// Commands an integrated shell runs: the exit codes its D marks carry, and
// whether it has taken all the input written to it.

// maxCodes bounds the exit codes kept: a write of more commands than that
// reports the newest.
const maxCodes = 256

// commandCodes keeps the exit codes of the commands an integrated shell
// finished, oldest first, the newest maxCodes of them.
type commandCodes struct {
	n     uint64 // commands finished so far
	codes []int  // the codes of the newest of them
}

// add records the end of a command.
func (c *commandCodes) add(code int) {
	c.n++
	if len(c.codes) == maxCodes {
		c.codes = append(c.codes[:0], c.codes[1:]...)
	}
	c.codes = append(c.codes, code)
}

// since returns the codes of the commands that finished after the first n,
// in order (the newest maxCodes when there were more).
func (c *commandCodes) since(n uint64) []int {
	if c.n <= n {
		return nil
	}
	k := min(c.n-n, uint64(len(c.codes)))
	return append([]int(nil), c.codes[uint64(len(c.codes))-k:]...)
}

// CommandExits returns the exit codes of the commands an integrated shell
// finished since the last write, in the order they finished: those the
// write submitted, and those that were running when it came. nil when
// none finished.
func (p *Process) CommandExits() []int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.in.cmds.since(p.in.wrote.exits)
}

// shellReady reports whether an integrated shell waits at its prompt for a
// command: a prompt (B mark) newer than the last write, or the same prompt
// once the output settled after a write of a partial line. Lines written
// at once, or typed while a command ran, reach the shell one by one, and
// it prints a prompt before each, so the prompt alone does not say the
// shell is done: it is only if nothing written waits unread in the
// terminal, the shell is not busy (it may have read the next lines into
// its own buffer: bash, zsh and fish all do) and no output came since the
// prompt.
func (p *Process) shellReady(v inputView) bool {
	ms := v.marks
	if !ms.atPrompt || ms.prompts == v.wrote.prompts && v.quiet < p.timing.quietPeriod {
		return false
	}
	if p.in.kernel.shellBusy() || p.in.kernel.pending() {
		return false
	}
	return p.unchangedSince(v)
}

// typeahead: a program blocked reading its terminal while input waits
// there unread is not waiting for input, it has not been scheduled since
// (a loaded machine); asking also makes the terminal hand over what the
// server wrote, so a Ctrl-C written reaches the program first.
func (k procKernel) typeahead() bool { return k.p.proc.Typeahead() }

// shellBusy: input waits unread in the terminal, or the shell itself (not
// the jobs its group may hold) is not waiting for input.
func (k procKernel) shellBusy() bool {
	p := k.p
	if p.proc.Typeahead() {
		return true
	}
	in := prompt.Input{Session: p.Pid, Only: p.Pid, Path: p.proc.InputPath()}
	return in.Path != "" && p.in.prober.Inspect(in).Activity == prompt.Busy
}
