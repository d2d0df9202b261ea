package session

import (
	"fmt"
	"math"
	"time"

	"github.com/yieldshell/yieldshell/internal/policy"
	"github.com/yieldshell/yieldshell/prompt"
	"github.com/yieldshell/yieldshell/pty"
)

// Status is a process's state as the tools report it.
type Status string

const (
	Running   Status = "running"
	Completed Status = "completed"
	Stopped   Status = "stopped"
	TimedOut  Status = "timed_out"
	Failed    Status = "failed"
)

// Ending says who ended a process.
type Ending string

const (
	EndedByExit     Ending = "exit"     // it exited by itself
	EndedBySignal   Ending = "signal"   // a signal we did not send killed it
	EndedByStop     Ending = "stop"     // the stop tool
	EndedByTimeout  Ending = "timeout"  // its timeout_ms passed
	EndedByShutdown Ending = "shutdown" // the server shut down
	EndedByRestart  Ending = "restart"  // the restart tool
	// EndedByInput: it waited for input under exec's on_input "fail".
	EndedByInput Ending = "input"
)

// Reason says why a wait returned.
type Reason string

const (
	ReasonExited    Reason = "exited"
	ReasonInputWait Reason = "input_wait"
	ReasonYield     Reason = "yield_elapsed"
	ReasonDeadline  Reason = "deadline"
	ReasonCancelled Reason = "cancelled"
	ReasonPattern   Reason = "pattern" // the requested pattern appeared
	ReasonQuiet     Reason = "quiet"   // the output went quiet
	ReasonOutput    Reason = "output"  // output arrived past the position asked for
	// ReasonDetached: the command exited, but processes it started run on.
	ReasonDetached Reason = "detached"
	// ReasonReady: the program serves (it listens, or shows a shortcut
	// hint) and reads its terminal: it is up, and not waiting for input.
	ReasonReady Reason = "ready"
)

// Signal names what showed that a program waits for input, and
// Confidence how much a verdict rests on it: prompt's.
type (
	Signal     = prompt.Signal
	Confidence = prompt.Confidence
)

const (
	SignalMark    = prompt.SignalMark
	SignalTTY     = prompt.SignalTTY
	SignalStdin   = prompt.SignalStdin
	SignalRelay   = prompt.SignalRelay
	SignalTTYMode = prompt.SignalTTYMode
	SignalQuiet   = prompt.SignalQuiet

	ConfidenceHigh   = prompt.ConfidenceHigh
	ConfidenceMedium = prompt.ConfidenceMedium
	ConfidenceLow    = prompt.ConfidenceLow
)

// phase is where a process is in its life. It only moves forward, through
// [Process.advanceLocked].
type phase uint8

const (
	phaseRunning   phase = iota // started, its direct child not reaped yet
	phaseExited                 // the direct child was reaped; output is draining or descendants run
	phaseFinishing              // finish is making the end final
	phaseEnded                  // the status is final
)

func (ph phase) String() string {
	switch ph {
	case phaseRunning:
		return "running"
	case phaseExited:
		return "exited"
	case phaseFinishing:
		return "finishing"
	case phaseEnded:
		return "ended"
	}
	return fmt.Sprintf("phase(%d)", uint8(ph))
}

// lifecycle is a process's phase and what its end records. The Process
// guards it with its mutex.
type lifecycle struct {
	phase   phase
	ending  Ending // who ends it: set by whoever began ending it, final once ended
	exit    pty.ExitStatus
	endedAt time.Time
	killAt  time.Time // when the group gets SIGKILL; zero if not ending
	killed  bool      // SIGKILL was sent
	// leftOpen: output was still open when the process was reported ended.
	leftOpen bool
	// detached: the direct child exited and its output is drained, but
	// processes it started (its group, tagged descendants) still run. The
	// process stays running and can be stopped until they are gone.
	detached bool
}

// over reports whether the process can no longer take input: its direct
// child is gone. Its descendants may still run; see [lifecycle.gone].
func (lc *lifecycle) over() bool { return lc.phase >= phaseExited }

// gone reports whether nothing of the process's tree is left to end: its
// end is being made final.
func (lc *lifecycle) gone() bool { return lc.phase >= phaseFinishing }

// ended reports whether the status is final.
func (lc *lifecycle) ended() bool { return lc.phase == phaseEnded }

// status is the status the tools report.
func (lc *lifecycle) status() Status {
	if !lc.ended() {
		return Running
	}
	switch lc.ending {
	case EndedByStop, EndedByShutdown, EndedByRestart:
		return Stopped
	case EndedByTimeout:
		return TimedOut
	case EndedByInput:
		return Failed
	}
	return Completed
}

// waiter is what the goroutine that follows a process to its end
// ([Process.wait]) shares with the rest of the Process.
type waiter struct {
	timeout time.Duration // timeout_ms; 0 means none
	// kick tells the waiter to read anew what may have changed: killAt,
	// the output's EOF (streams.open), closing. One channel for all, as
	// each is kept while the process's record is.
	kick chan struct{}
	done chan struct{} // closed when the waiter returns
	// closing: Close releases the waiter early. Guarded by p.mu.
	closing bool
}

func newWaiter(timeout time.Duration) waiter {
	return waiter{timeout: timeout, kick: make(chan struct{}, 1), done: make(chan struct{})}
}

// wake kicks the waiter; a kick already pending covers this one, as the
// waiter reads everything anew.
func (w *waiter) wake() {
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

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
	if cfg.Times.TimeoutGrace > 0 {
		timeoutGrace = cfg.Times.TimeoutGrace
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
