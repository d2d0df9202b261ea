package tools

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/yieldshell/yieldshell/internal/mcptool"
	"github.com/yieldshell/yieldshell/internal/policy"
	"github.com/yieldshell/yieldshell/internal/session"
	"github.com/yieldshell/yieldshell/internal/wire"
)

// compilePattern compiles a wait_for or until regex, explaining a bad one.
func compilePattern(param, s string) (*regexp.Regexp, error) {
	re, err := regexp.Compile(s)
	if err != nil {
		return nil, fmt.Errorf("invalid %s: %s (Go RE2 syntax: no look-around or back-references)", param, policy.RegexProblem(err))
	}
	return re, nil
}

// verifyStart waits for a start's wait_for from the first byte, following
// the process through crash restarts; it returns the run it ended on.
func (h *handlers) verifyStart(ctx context.Context, p *session.Process, re *regexp.Regexp, limit time.Duration) (*session.Process, session.Reason, wire.PatternFields, int) {
	p, r, restarts := h.m.WaitPatternFollowing(ctx, p, time.Now().Add(limit), re)
	reason, f := patternAnswer(r)
	return p, reason, f, restarts
}

func patternAnswer(r session.Outcome) (session.Reason, wire.PatternFields) {
	return r.Reason, wire.PatternFields{Verified: new(r.Reason == session.ReasonPattern), Matched: r.Matched, MatchedLine: r.Line}
}

// waitForLimit is a start's time limit for wait_for.
func (h *handlers) waitForLimit(reqMs *int) time.Duration {
	d := defaultWaitFor
	if reqMs != nil {
		d = mcptool.Millis(max(*reqMs, 0))
	}
	return min(d, h.cfg.Times.MaxYield)
}

// nameInUse builds the refusal of a duplicate name.
func nameInUse(err error) (string, bool) {
	e, ok := errors.AsType[*session.NameInUseError](err)
	if !ok {
		return "", false
	}
	return e.ProcessID, true
}

// defaultWaitFor is how long exec waits for wait_for when
// wait_for_timeout_ms is not given.
const defaultWaitFor = 30 * time.Second

// restartPolicy reads exec's crash-restart parameters.
func restartPolicy(in wire.ExecIn) session.RestartPolicy {
	rp := session.RestartPolicy{MaxRetries: max(deref(in.MaxRetries), 0), Delay: time.Second}
	if in.RetryDelayMs != nil {
		rp.Delay = mcptool.Millis(max(*in.RetryDelayMs, 0))
	}
	if in.RetryMaxDelayMs != nil {
		rp.MaxDelay = mcptool.Millis(max(*in.RetryMaxDelayMs, 0))
	}
	return rp
}

// verifyNotes says plainly what happened to a wait_for, how many crash
// restarts it followed, and whether one is on its way.
func (h *handlers) verifyNotes(p *session.Process, waitFor *regexp.Regexp, reason session.Reason, in session.Info, restarts int) []string {
	var notes []string
	if restarts > 0 {
		notes = append(notes, fmt.Sprintf("the process crashed and was restarted %d time(s) while waiting for wait_for; this answer is about the newest run", restarts))
	}
	if waitFor != nil {
		switch reason {
		case session.ReasonExited:
			notes = append(notes, fmt.Sprintf("not verified: the process ended (%s) before wait_for %q appeared in its output", in.Status, waitFor))
		case session.ReasonDeadline:
			notes = append(notes, fmt.Sprintf("not verified: wait_for %q did not appear within wait_for_timeout_ms; the process is still running: read its output, or wait with until", waitFor))
		}
	}
	if h.m.WillRestart(p) {
		notes = append(notes, "it crashed and will be restarted under the same name; use the name to follow the new run, or stop to cancel")
	}
	return notes
}
