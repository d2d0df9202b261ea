package session

import (
	"fmt"
	"time"

	"github.com/yieldshell/yieldshell/internal/pty"
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
	kick    chan struct{} // tells the waiter that killAt changed
	stop    chan struct{} // closed by Close to release the waiter early
	done    chan struct{} // closed when the waiter returns
}

func newWaiter(timeout time.Duration) waiter {
	return waiter{timeout: timeout, kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
}
