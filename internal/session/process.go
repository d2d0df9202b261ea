package session

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/yieldshell/yieldshell/internal/outlog"
	"github.com/yieldshell/yieldshell/pty"
)

// Stream names one output stream of a process ([outlog.Stream]).
type Stream = outlog.Stream

// The streams, as the output log names them.
const (
	Stdout = outlog.Stdout
	Stderr = outlog.Stderr
	Both   = outlog.Both
)

// ErrNotRunning is returned for operations that need a running process.
var ErrNotRunning = errors.New("process is not running")

// Process is one command the Manager started. It owns the OS process, the
// goroutines that read its output and reap it, and its output log.
type Process struct {
	ID        string
	Name      string
	Command   string
	Cwd       string
	Pid       int // on Host's kernel
	TTY       bool
	StartedAt time.Time
	Host      string // the ssh destination it runs on; "" for this machine

	tag     string                    // tagKey value of the process and its descendants
	eng     atomic.Pointer[engineRef] // the command as the kernel sees it (engine.go, ended.go)
	timing  *timing                   // the Manager's, shared by its processes
	hooks   endHooks
	w       waiter  // the goroutine that follows it to its end (end.go)
	streams streams // the goroutines that read its output (reader.go)
	closing sync.Once

	mu sync.Mutex
	// changed is closed at the next state change; made only when someone
	// waits for one (changedLocked), so a finished process nobody watches
	// holds none.
	changed chan struct{}
	log     *outlog.Log
	out     pipeline
	lc      lifecycle
	in      inputTracker
	human   humanState // pages a person answers (human.go)

	// sharePersonSecret redacts a secret a person typed into this process
	// from every process of the Manager (startSpec's; shared.go).
	sharePersonSecret func(string)
	// lateOutput is called, without the lock, when the output of a
	// process that had already ended reaches EOF: the Manager measures it
	// again (startSpec's; retention.go).
	lateOutput func()
	sandbox    *sandboxRun // nil: unconfined; set at start
}

// endHooks are what the Manager learns of a process's end. Each is called
// once, without the Process's lock.
type endHooks struct {
	// releaseSlot frees its place under the process limit, just before
	// the end becomes visible.
	releaseSlot func()
	// onEnd gets the final state, as the end made it visible, after that.
	onEnd func(*Process, Info)
}

// streams follows the process's output streams (one in PTY mode, stdout
// and stderr in pipe mode) and the descriptors behind them.
type streams struct {
	readers sync.WaitGroup // the readers, and exec's stdin writer
	// Guarded by the Process's lock:
	open     int  // streams not yet at EOF; the last one wakes the waiter
	released bool // the descriptors are closed
}

// broadcast wakes every waiter. Called with p.mu held.
func (p *Process) broadcast() {
	if p.changed != nil {
		close(p.changed)
		p.changed = nil
	}
}

// changedLocked returns a channel closed at the next state change. Called
// with p.mu held.
func (p *Process) changedLocked() <-chan struct{} {
	if p.changed == nil {
		p.changed = make(chan struct{})
	}
	return p.changed
}

// advanceLocked moves the process to phase to and wakes every waiter. It
// reports false, changing nothing, if the process is already there or
// beyond. Called with p.mu held.
func (p *Process) advanceLocked(to phase) bool {
	if to <= p.lc.phase {
		return false
	}
	p.lc.phase = to
	p.broadcast()
	return true
}

// releaseLocked lets go of the process's descriptors once it has ended
// and its output reached EOF: a finished process must not hold a terminal
// (or pipes) for as long as its record is kept. It returns the close,
// which the caller runs once it has unlocked p.mu: closing a terminal
// takes tens of microseconds, which a waiter woken by the end (exec's
// answer) would otherwise wait out on the lock. Nothing reaches the
// descriptors meanwhile: the engine is already the ended one.
func (p *Process) releaseLocked() (closeEngine func()) {
	if !p.lc.ended() || p.streams.open != 0 || p.streams.released {
		return func() {}
	}
	p.streams.released = true
	e := p.engine()
	p.endEngine()
	return func() { _ = e.Close() } // nothing is blocked on them any more
}

// Ended reports whether the process has ended and its status is final.
func (p *Process) Ended() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lc.ended()
}

// notRunning is the error for a process that cannot be acted on any more,
// with the status to report (an exited process still draining its output
// counts as completed; one whose descendants still run, as running).
func (p *Process) notRunning() error {
	p.mu.Lock()
	status, detached := p.lc.status(), p.lc.detached
	p.mu.Unlock()
	if status == Running && detached {
		return fmt.Errorf("%w: its command exited and what it started no longer takes input from it (status: running; stop ends it)", ErrNotRunning)
	}
	if status == Running {
		status = Completed
	}
	return fmt.Errorf("%w (status: %s)", ErrNotRunning, status)
}

// Resize changes the terminal size of a PTY-mode process; the program gets
// SIGWINCH.
func (p *Process) Resize(cols, rows uint16) error {
	if !p.TTY {
		return pty.ErrNotTTY
	}
	p.mu.Lock()
	p.out.resize(p.log, int(cols), int(rows))
	p.mu.Unlock()
	return p.engine().Resize(cols, rows)
}

// Info is a summary of a process at one moment.
type Info struct {
	ID, Name, Command, Cwd string
	Pid                    int
	TTY                    bool
	Status                 Status
	EndedBy                Ending
	ExitCode               *int
	Signal                 string
	StartedAt              time.Time
	EndedAt                time.Time // zero while running
	Duration               time.Duration
	StdoutBytes            int64
	StderrBytes            int64
	OutputLeftOpen         bool // a descendant still held the output open at the end
	StdinError             string
	// DroppedReplies counts replies to the program's terminal queries that
	// were dropped: it sent them faster than it read its input, or whoever
	// asked did not read them in time (replyHold).
	DroppedReplies int
}

// Info returns the process's current summary.
func (p *Process) Info() Info {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.infoLocked()
}

func (p *Process) infoLocked() Info {
	in := Info{
		ID: p.ID, Name: p.Name, Command: p.Command, Cwd: p.Cwd, Pid: p.Pid, TTY: p.TTY,
		Status:         p.lc.status(),
		StartedAt:      p.StartedAt,
		StdoutBytes:    p.log.Total(Stdout),
		StderrBytes:    p.log.Total(Stderr),
		OutputLeftOpen: p.lc.leftOpen,
		DroppedReplies: p.out.droppedReplies(),
	}
	if p.in.stdinErr != nil {
		in.StdinError = p.in.stdinErr.Error()
	}
	if p.lc.ended() {
		in.EndedBy = p.lc.ending
		code := p.lc.exit.Code
		in.ExitCode = &code
		if p.lc.exit.Signal != 0 {
			in.Signal = SignalName(p.lc.exit.Signal)
		}
		in.EndedAt = p.lc.endedAt
		in.Duration = p.lc.endedAt.Sub(p.StartedAt)
	} else {
		in.Duration = time.Since(p.StartedAt)
	}
	return in
}
