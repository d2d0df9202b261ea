package session

import (
	"context"
	"time"

	"github.com/yieldshell/yieldshell/prompt"
)

// replyHold is how long a reply waits for the program that asked to read
// its terminal; a program that has not by then is not waiting for it, and
// the reply is dropped rather than left for whoever reads next.
const replyHold = 5 * time.Second

// The checks of a waiting reply start at once and back off to
// replyPollMax between them.
const (
	replyPollMin = 100 * time.Microsecond
	replyPollMax = 10 * time.Millisecond
)

// deliverReply writes a batch of replies to the program that asked, and
// only to it (issue 30 item 1): a reply left unread in the terminal is
// read by whatever reads next, typically a shell's line editor, which
// takes it for keys typed ahead of the agent's next command. So a batch
// is written when, all at once,
//
//   - the process group in the foreground when the queries were read is
//     still there (checked again under the input's write lock, so no
//     write of the agent's comes between);
//   - that group reads the terminal (blocked in a read of it, or polling
//     it), so the reply is taken by the program waiting for it: a program
//     that queries and exits (cat of a file with queries in it) never
//     does, and its replies are dropped once it is gone or after
//     replyHold; where the kernel cannot be asked, at once;
//   - the terminal is not in canonical mode: a program that reads a
//     reply turns line editing off first (a reply ends in no newline), so
//     a reader in canonical mode (input(), read, cat) did not ask, and a
//     reply written to it would be echoed and glued to the next line;
//   - for a shell with marks, the query was not read while the shell sat
//     at its prompt (then it came from a background job, and the reader
//     is the line editor: issue 38 item 1), and the shell has not come
//     back to its prompt since: the output up to now is read first (the
//     shell prints its prompt before its line editor reads), so a query
//     read after its program ended, while the shell has already taken the
//     terminal back, is not answered into the line editor.
//
// It reports whether it wrote the batch; an error is the input's.
func (p *Process) deliverReply(ctx context.Context, batch replyBatch) (bool, error) {
	if batch.from.pgrp == 0 {
		// Nothing is known of who asked (Windows): answer as a terminal
		// does.
		return p.engine().WriteReply(ctx, 0, batch.b)
	}
	deadline := time.Now().Add(replyHold)
	pause := replyPollMin
	for {
		ready, drop := p.replyReady(batch.from)
		if drop {
			return false, nil
		}
		if ready {
			return p.engine().WriteReply(ctx, batch.from.pgrp, batch.b)
		}
		if time.Now().After(deadline) {
			return false, nil
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return false, ctx.Err()
		case <-t.C:
		}
		pause = min(2*pause, replyPollMax)
	}
}

// replyReady says whether a reply to a query of from can be written now,
// or must be dropped: see deliverReply. The kernel is asked before the
// output is looked at for the last time: a shell prints its prompt before
// its line editor reads, so a shell seen reading has its prompt in the
// terminal or in the log by then. Looked at only before, the prompt could
// be printed and the read begun while the kernel was asked, and the reply
// went to the line editor, glued to the front of the agent's next
// command.
func (p *Process) replyReady(from replyOrigin) (ready, drop bool) {
	if from.idle {
		return false, true
	}
	fg, err := p.engine().ForegroundPgrp()
	if err != nil || fg != from.pgrp {
		return false, true
	}
	if _, back := p.marksSince(from); back {
		return false, true
	}
	if p.in.prober != nil {
		path := p.engine().InputPath()
		if path == "" {
			return false, true
		}
		// The terminal's own readers: a relay (script) takes the reply and
		// passes it on, whatever runs inside; a multiplexer's server
		// (tmux) watches the terminal with a timer beside its other
		// descriptors while its client, in the foreground, waits on it.
		switch pr := p.in.prober.Inspect(prompt.Input{Session: p.Pid, Pgrp: fg, Path: path, Tag: tagKey + "=" + p.tag, Direct: true}); {
		case pr.Activity == prompt.Reading, pr.Activity == prompt.Polling, pr.Activity == prompt.Unknown, pr.Watched:
		default:
			return false, false
		}
	}
	if _, canonical, err := p.engine().Modes(); err != nil || canonical {
		return false, false
	}
	marked, _ := p.marksSince(from)
	if !marked {
		return true, false
	}
	if p.engine().Pending() {
		return false, false // the reader has output to take first
	}
	_, back := p.marksSince(from)
	return !back, back
}

// marksSince reports whether the shell has marks, and whether it came back
// to its prompt since the query of from was read.
func (p *Process) marksSince(from replyOrigin) (marked, back bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.in.integrated || p.in.marks.prompts > 0, p.in.marks.returns != from.returns
}
