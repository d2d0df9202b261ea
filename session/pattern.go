package session

import (
	"context"
	"regexp"
	"time"
)

// ReasonPattern: a wait returned because the requested pattern appeared.
const ReasonPattern Reason = "pattern"

// PatternResult is the outcome of WaitPattern.
type PatternResult struct {
	Reason  Reason
	Matched string // the text the pattern matched, when Reason is ReasonPattern
	Line    string // the whole line it matched in
}

// WaitPattern blocks until re matches a line of the clean log at or after
// position from, the process ends (all of its output looked at first), the
// deadline passes, or ctx is done. from 0 looks at everything the process
// printed, so output of its first milliseconds is never missed.
//
// The log is looked at line by line, each byte once: only what was appended
// since the previous wake-up is scanned, a line split across chunks is seen
// whole, and the line still being written is tried as it grows (so a prompt
// without a newline can match too; in PTY mode the terminal's unfinished
// line reaches the log when the process ends or an answer reads it).
func (p *Process) WaitPattern(ctx context.Context, deadline time.Time, re *regexp.Regexp, from int64) PatternResult {
	s := lineScan{pos: from}
	var res PatternResult
	match := func(b []byte) bool {
		loc := re.FindIndex(b)
		if loc == nil {
			return false
		}
		res.Matched, res.Line = string(b[loc[0]:loc[1]]), string(b)
		return true
	}
	ok, err := p.await(ctx, deadline, func() bool {
		return s.scan(p.log, true, match) || p.ended
	})
	switch {
	case res.Line != "" || res.Matched != "":
		res.Reason = ReasonPattern
	case ok:
		res.Reason = ReasonExited
	case err != nil:
		res.Reason = ReasonCancelled
	default:
		res.Reason = ReasonDeadline
	}
	return res
}

// LogEnd returns the position the next byte of output will get.
func (p *Process) LogEnd() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.end
}
