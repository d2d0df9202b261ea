package session

import (
	"context"
	"regexp"
	"time"
)

// PatternResult is the outcome of WaitPattern.
type PatternResult struct {
	Reason  Reason
	Matched string // the text the pattern matched, when Reason is ReasonPattern
	Line    string // the whole line it matched in
}

// WaitPattern blocks until re matches a line of the clean log at or after
// position from, the process ends, the deadline passes, or ctx is done (see
// Await). It does not stop when the program waits for input: servers read
// keyboard shortcuts while they start.
func (p *Process) WaitPattern(ctx context.Context, deadline time.Time, re *regexp.Regexp, from int64) PatternResult {
	o := p.Await(ctx, deadline, Until{Pattern: re, From: from})
	return PatternResult{Reason: o.Reason, Matched: o.Matched, Line: o.Line}
}

// LogEnd returns the position the next byte of output will get.
func (p *Process) LogEnd() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.end
}
