package session

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/yieldshell/yieldshell/internal/outlog"
	"github.com/yieldshell/yieldshell/internal/pty"
	"github.com/yieldshell/yieldshell/internal/screen"
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
	Pid       int
	TTY       bool
	StartedAt time.Time

	tag     string        // tagKey value of the process and its descendants
	proc    EngineProcess // the command as the kernel sees it (engine.go)
	timing  timing
	hooks   endHooks
	w       waiter          // the goroutine that follows it to its end (end.go)
	streams streams         // the goroutines that read its output (reader.go)
	life    context.Context // done once the process ended or was closed
	endLife context.CancelFunc
	closing sync.Once

	mu      sync.Mutex
	changed chan struct{} // closed and replaced on every state change
	log     *outlog.Log
	out     pipeline
	lc      lifecycle
	in      inputTracker
	human   humanState // pages a person answers (human.go)
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
	eof     chan struct{}  // closed when every output stream reached EOF
	// Guarded by the Process's lock:
	open     int  // streams not yet at EOF
	released bool // the descriptors are closed
}

// broadcast wakes every waiter. Called with p.mu held.
func (p *Process) broadcast() {
	close(p.changed)
	p.changed = make(chan struct{})
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

// releaseLocked closes the process's descriptors once it has ended and its
// output reached EOF: a finished process must not hold a terminal (or
// pipes) for as long as its record is kept.
func (p *Process) releaseLocked() {
	if p.lc.ended() && p.streams.open == 0 && !p.streams.released {
		p.streams.released = true
		_ = p.proc.Close() // nothing is blocked on them any more
	}
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
	return p.proc.Resize(cols, rows)
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
	// were dropped because it sent them faster than it read its input.
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

// Query selects output for an answer.
type Query struct {
	Since    *int64 // nil: the newest output (tail)
	MaxBytes int
	Streams  Stream
	// Screen asks for the rendered screen. A process in the alternate
	// screen always gets it.
	Screen bool
	// HeadTail cuts output over MaxBytes into its head and its tail,
	// saying what is left out between them (Output.Omitted), instead of
	// keeping only the tail (no Since) or the head (Since).
	HeadTail bool
}

// Output is a slice of a process's output.
type Output struct {
	Stdout, Stderr []byte
	StartSeq       int64
	NextSeq        int64
	Evicted        bool // some of the output asked for is no longer retained
	Capped         bool // the byte budget left some of it out
	// Omitted is the stretch a HeadTail query left out, if any.
	Omitted *outlog.Omission
	// Screen is the rendered terminal, when asked for or while a
	// full-screen program runs; nil otherwise and in pipe mode.
	Screen *screen.Snapshot
}

// Snapshot returns the summary and the selected output, consistently.
func (p *Process) Snapshot(q Query) (Info, Output) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.out.flush(p.log)
	var r outlog.Result
	var om *outlog.Omission
	if q.HeadTail {
		from := int64(-1)
		if q.Since != nil {
			from = max(*q.Since, 0)
		}
		r, om = p.log.HeadTail(from, q.MaxBytes, q.Streams)
	} else if q.Since == nil {
		r = p.log.ReadTail(q.MaxBytes, q.Streams)
	} else {
		r = p.log.ReadFrom(*q.Since, q.MaxBytes, q.Streams)
	}
	out := Output{
		Stdout: r.Stdout, Stderr: r.Stderr,
		StartSeq: r.Start, NextSeq: r.Next,
		Evicted: r.Evicted, Capped: r.Capped, Omitted: om,
	}
	out.Screen = p.out.screen(q.Screen)
	return p.infoLocked(), out
}

// LogEnd returns the position the next byte of output will get, once what
// is on the screen now is in the log.
func (p *Process) LogEnd() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.out.flush(p.log)
	return p.log.End()
}

// URLs returns the http(s) URLs the process has printed so far, deduplicated,
// in order (at most 20; output evicted before it was looked at is not).
func (p *Process) URLs() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.out.flush(p.log) // a URL still on the screen counts
	u := &p.out.urls
	u.scan.Needle = urlMark
	u.scan.Scan(p.log, func(b []byte) bool {
		if len(u.list) >= maxURLs || !bytes.Contains(b, urlMark) {
			return len(u.list) >= maxURLs
		}
		for _, m := range urlRE.FindAll(b, -1) {
			s := trimURL(string(m))
			if len(s) <= len("https://") || u.seen[s] {
				continue
			}
			if u.seen == nil {
				u.seen = make(map[string]bool)
			}
			u.seen[s] = true
			u.list = append(u.list, s)
			if len(u.list) >= maxURLs {
				return true
			}
		}
		return false
	})
	return append([]string(nil), u.list...)
}

// EvictedBytes is how many bytes of output the process has produced that are
// no longer retained: evicted from the front of its log to keep it within
// YIELDSHELL_MAX_LOG_BYTES.
func (p *Process) EvictedBytes() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.Start()
}
