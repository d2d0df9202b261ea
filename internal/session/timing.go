package session

import (
	"math"
	"time"

	"github.com/yieldshell/yieldshell/internal/policy"
	"github.com/yieldshell/yieldshell/internal/prompt"
)

// timing holds the durations that pace a process's end, input-wait
// detection and crash restarts. They are bounds and schedules, not sleeps:
// each wait returns as soon as its condition holds. A Manager takes
// [defaultTiming]; tests shorten them.
type timing struct {
	// drainGrace bounds how long output is drained after the direct child
	// exits, for descendants that keep the terminal or pipes open.
	drainGrace time.Duration
	// timeoutGrace is how long a timed-out process gets between SIGTERM
	// and SIGKILL.
	timeoutGrace time.Duration
	// shutdownGrace is the same when the server shuts down.
	shutdownGrace time.Duration
	// killWait bounds the wait for a process to be reaped after SIGKILL.
	killWait time.Duration

	// While a call waits for input, the kernel is asked firstProbe after
	// the newest output, then at doubling intervals up to maxProbe while
	// nothing changes. Otherwise it is asked only when an answer needs
	// the state (read, ps), so an idle server asks nothing.
	firstProbe, maxProbe time.Duration
	// quietPeriod is how long a prompt-shaped last line must stay before
	// the heuristic counts it.
	quietPeriod time.Duration

	// healthyRun is how long a run must live for the retry count of its
	// crash restarts to start over.
	healthyRun time.Duration
	// restartFloor is the least time between a crash and the restart it
	// leads to, whatever the policy asks: a command that fails at once
	// under max_retries with no delay would otherwise restart hundreds of
	// times a second.
	restartFloor time.Duration

	// diskCommit is how long PTY output must have been quiet before a log
	// file commits the rows still on the screen (see logSince).
	diskCommit time.Duration
}

// defaultTiming is the timing of a Manager under cfg: the timeout grace
// is configurable (YIELDSHELL_TIMEOUT_GRACE_MS), the rest is fixed.
func defaultTiming(cfg *policy.Config) timing {
	timeoutGrace := 2 * time.Second
	if cfg.TimeoutGrace > 0 {
		timeoutGrace = cfg.TimeoutGrace
	}
	return timing{
		drainGrace:    250 * time.Millisecond,
		timeoutGrace:  timeoutGrace,
		shutdownGrace: 1500 * time.Millisecond,
		killWait:      2 * time.Second,
		firstProbe:    5 * time.Millisecond,
		maxProbe:      500 * time.Millisecond,
		quietPeriod:   prompt.QuietPeriod,
		healthyRun:    time.Minute,
		restartFloor:  minRestartDelay,
		diskCommit:    200 * time.Millisecond,
	}
}

// minRestartDelay is the default floor of crash-restart delays.
const minRestartDelay = 100 * time.Millisecond

// noProbe, as the quiet an evaluation needs before it asks the kernel,
// means never.
const noProbe = time.Duration(math.MaxInt64)
