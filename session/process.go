package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"syscall"
	"time"

	"github.com/yieldshell/yieldshell/policy"
	"github.com/yieldshell/yieldshell/prompt"
	"github.com/yieldshell/yieldshell/pty"
	"github.com/yieldshell/yieldshell/screen"
)

// readBatch is the most output a reader takes in one turn.
const readBatch = 4 << 10

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

	tag   string // tagKey value of the process and its descendants
	proc  *pty.Process
	onEnd func(*Process) // called once, without p.mu, when the process ends
	// releaseSlot frees its place under the process limit; called once,
	// without p.mu, just before the end becomes visible.
	releaseSlot func()
	timeout     time.Duration
	timing      timing
	readers     sync.WaitGroup
	waiterEnd   chan struct{}   // closed when the waiter goroutine returns
	eof         chan struct{}   // closed when every output stream reached EOF
	stopWait    chan struct{}   // closed by Close to release the waiter early
	kick        chan struct{}   // tells the waiter that killAt changed
	life        context.Context // done once the process ended or was closed
	endLife     context.CancelFunc
	closeOnce   sync.Once

	mu       sync.Mutex
	changed  chan struct{} // closed and replaced on every state change
	log      *outputLog
	out      pipeline
	lc       lifecycle
	openEOF  int  // streams not yet at EOF
	released bool // the descriptors are closed
	stdinErr error
	urls     urlSet // URLs printed so far (urls.go)

	in inputTracker
}

func newProcess(parent context.Context, id string, spec *startSpec, proc *pty.Process, capacity int, secrets []policy.Secret, onEnd func(*Process)) *Process {
	p := &Process{
		ID:          id,
		Name:        spec.Name,
		Command:     spec.Command,
		Cwd:         spec.cwd,
		Pid:         proc.Pid(),
		TTY:         proc.TTY(),
		StartedAt:   spec.startedAt,
		tag:         spec.tag,
		proc:        proc,
		onEnd:       onEnd,
		releaseSlot: spec.releaseSlot,
		timeout:     spec.timeout,
		timing:      spec.timing,
		waiterEnd:   make(chan struct{}),
		eof:         make(chan struct{}),
		stopWait:    make(chan struct{}),
		kick:        make(chan struct{}, 1),
		changed:     make(chan struct{}),
		log:         newOutputLog(capacity),
		in: inputTracker{
			prober:     spec.prober,
			lastOutput: spec.startedAt,
			feeding:    spec.Stdin != "" || spec.CloseStdin,
		},
	}
	p.in.kernel = procKernel{p}
	p.life, p.endLife = context.WithCancel(parent)
	if p.TTY {
		cols, rows := proc.Size()
		p.out = newTerminalPipeline(int(cols), int(rows), secrets)
		go p.out.replies.run(p.life, p.proc.WriteInput)
	}
	p.openEOF = 1
	if proc.Stderr() != nil {
		p.openEOF = 2
	}
	p.readers.Add(p.openEOF)
	go p.read(proc.Stdout(), Stdout, policy.NewRedactor(secrets))
	if r := proc.Stderr(); r != nil {
		go p.read(r, Stderr, policy.NewRedactor(secrets))
	}
	go p.wait()
	if spec.Stdin != "" || spec.CloseStdin {
		p.readers.Add(1)
		go p.writeInitial(spec.Stdin, spec.CloseStdin)
	}
	return p
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

// read is the one goroutine that owns stream s and its redactor: raw bytes
// go through the redactor and, in PTY mode, the terminal cleaner into the
// log, so no secret is ever stored.
func (p *Process) read(r io.Reader, s Stream, red *policy.Redactor) {
	defer p.readers.Done()
	// One terminal read's worth: a small batch keeps each turn under p.mu
	// short, so tool calls wait behind little. Under a flood of 50 busy
	// terminals, 4 KiB gave ps a p99 of 38-45 ms against 48-50 ms for 8 KiB
	// and 54-60 ms for 16 KiB, at the same drain rate.
	buf := make([]byte, readBatch)
	var redacted, text []byte
	var sc scratch
	var scan prompt.Scanner
	var marks []prompt.Mark
	// Pipe-mode output reaches the log as written but for control strings
	// (see screen.Stripper); in PTY mode the cleaner takes everything.
	var strip *screen.Stripper
	var stripped []byte
	if !p.TTY {
		strip = new(screen.Stripper)
	}
	clean := func(b []byte, last bool) []byte {
		if strip == nil {
			return b
		}
		stripped = strip.Write(stripped[:0], b)
		if last {
			stripped = strip.Flush(stripped)
		}
		return stripped
	}
	for {
		n, err := r.Read(buf)
		if n > 0 {
			p.in.inFlight.Add(1)
			redacted = red.Write(redacted[:0], buf[:n])
			text, marks = scan.Write(text[:0], redacted, marks[:0])
			p.mu.Lock()
			prev := 0
			for _, m := range marks {
				p.out.append(p.log, s, clean(text[prev:m.Pos], false), &sc, false)
				p.markLocked(m)
				prev = m.Pos
			}
			p.out.append(p.log, s, clean(text[prev:], false), &sc, false)
			p.in.outputs++
			p.in.lastOutput = time.Now()
			p.in.inFlight.Add(-1)
			p.broadcast()
			p.mu.Unlock()
			// A busy terminal always has more to read: without yielding, a
			// reader would run until Go preempts it (10 ms), and with many
			// busy processes a tool call would wait behind all of them.
			runtime.Gosched()
		}
		if err != nil {
			// What the redactor and the mark scanner held back is output
			// now; a mark at the very end says nothing any more.
			redacted = red.Flush(redacted[:0])
			text, _ = scan.Write(text[:0], redacted, marks[:0])
			text = scan.Flush(text)
			p.mu.Lock()
			p.out.append(p.log, s, clean(text, true), &sc, true)
			p.openEOF--
			if p.openEOF == 0 {
				close(p.eof)
			}
			p.releaseLocked()
			p.broadcast()
			p.mu.Unlock()
			return
		}
	}
}

// writeInitial feeds exec's stdin parameter without holding up exec: a
// child that does not read must not stall the answer. The write gives up
// when the process ends or is closed.
func (p *Process) writeInitial(data string, closeAfter bool) {
	defer p.readers.Done()
	var err error
	if data != "" {
		err = p.proc.WriteInput(p.life, []byte(data))
	}
	if err == nil && closeAfter {
		err = p.proc.CloseInput()
	}
	p.mu.Lock()
	if err != nil && p.life.Err() == nil {
		p.stdinErr = err
	}
	p.in.feeding = false
	p.broadcast()
	p.mu.Unlock()
}

// wait is the one goroutine that follows the process to its end: it reaps
// it (through pty), enforces timeout_ms, escalates to SIGKILL when a stop's
// grace runs out, and drains output. A command is not over while its tree
// lives: after the direct child exits, the end waits for every member of
// its process group and every tagged descendant to be gone, and timeout_ms
// and the escalation keep applying to them meanwhile.
func (p *Process) wait() {
	defer close(p.waiterEnd)
	var timeoutC <-chan time.Time
	if p.timeout > 0 {
		t := time.NewTimer(p.timeout)
		defer t.Stop()
		timeoutC = t.C
	}
	kill := time.NewTimer(time.Hour)
	kill.Stop()
	defer kill.Stop()
	armed := false
	rearm := func() {
		p.mu.Lock()
		at := p.lc.killAt
		p.mu.Unlock()
		if !at.IsZero() {
			kill.Reset(time.Until(at))
			armed = true
		}
	}
	// The tree watcher is started once the direct child has exited and its
	// output is drained; it is stopped and joined before wait returns.
	watchCtx, stopWatch := context.WithCancel(context.Background())
	var watching sync.WaitGroup
	defer func() {
		stopWatch()
		watching.Wait()
	}()
	var treeGone chan struct{}
	var drain <-chan time.Time
	var drainT *time.Timer
	defer func() {
		if drainT != nil {
			drainT.Stop()
		}
	}()
	exited := p.proc.Done()
	eof := p.eof
	var hasExited, drained, eofSeen, goneSeen, watched, redrain bool
	var exitedAt time.Time
	var detachT *time.Timer
	var detachC <-chan time.Time
	defer func() {
		if detachT != nil {
			detachT.Stop()
		}
	}()
	// settle ends the process once the direct child exited, its output is
	// drained (EOF, or the drain grace passed) and nothing of its tree is
	// left; while the tree lives, it waits for it.
	settle := func() {
		if !hasExited || !drained {
			return
		}
		if !goneSeen {
			if treeGone != nil {
				return // the watcher is on it
			}
			if pty.TreeAlive(p.Pid, tagKey, p.tag) {
				// A process dying of the terminal's hang-up (or closing
				// its output on the way out) still counts as alive for an
				// instant: the command counts as detached only once the
				// drain grace since the exit has passed.
				treeGone, watched = make(chan struct{}), true
				watching.Go(func() { p.watchTree(watchCtx, treeGone) })
				detachT = time.NewTimer(max(time.Until(exitedAt.Add(p.timing.drainGrace)), 0))
				detachC = detachT.C
				return
			}
			goneSeen = true
		}
		if !eofSeen && watched && !redrain {
			// The tree ended while the output was still open: the last
			// bytes get the drain grace once more.
			redrain = true
			drainT.Reset(p.timing.drainGrace)
			drain = drainT.C
			drained = false
			return
		}
		p.finish(!eofSeen)
	}
	for {
		select {
		case <-exited:
			exited = nil
			hasExited, exitedAt = true, time.Now()
			p.mu.Lock()
			p.lc.exit = p.proc.Status()
			p.advanceLocked(phaseExited)
			p.mu.Unlock()
			drainT = time.NewTimer(p.timing.drainGrace)
			drain = drainT.C
			if eofSeen {
				drainT.Stop()
				drain = nil
				drained = true
			}
			settle()
		case <-eof:
			eof = nil
			eofSeen = true
			if hasExited {
				drained = true
				drain = nil
				settle()
			}
		case <-drain:
			drain = nil
			drained = true
			settle()
		case <-detachC:
			detachC = nil
			p.mu.Lock()
			p.lc.detached = true
			p.broadcast()
			p.mu.Unlock()
		case <-treeGone:
			treeGone, detachC = nil, nil
			goneSeen = true
			settle()
		case <-timeoutC:
			timeoutC = nil
			if p.beginEnding(EndedByTimeout, p.timing.timeoutGrace) {
				_ = p.signalTree(syscall.SIGTERM) // ESRCH: it is exiting anyway
			}
		case <-p.kick:
			rearm()
		case <-kill.C:
			armed = false
			p.mu.Lock()
			p.lc.killed = true
			p.mu.Unlock()
			_ = p.signalTree(syscall.SIGKILL) // ESRCH: the group is already gone
		case <-p.stopWait:
			return
		}
		p.mu.Lock()
		ended := p.lc.ended()
		p.mu.Unlock()
		if ended && !armed {
			return
		}
	}
}

// watchTree closes gone once no member of the process's group and no
// tagged descendant is left, or returns when ctx is done. It waits on the
// processes themselves, so a long-lived descendant costs nothing.
func (p *Process) watchTree(ctx context.Context, gone chan<- struct{}) {
	for {
		pids := pty.Members(p.Pid, tagKey, p.tag)
		if len(pids) == 0 {
			close(gone)
			return
		}
		if pty.AwaitExit(ctx, pids) != nil && ctx.Err() != nil {
			return
		}
	}
}

// signalTree sends sig to the process group, and to every descendant that
// left the group (setsid, daemons) but still carries the process's tag.
func (p *Process) signalTree(sig syscall.Signal) error {
	err := p.proc.Signal(sig)
	for pid, v := range pty.Tagged(tagKey) {
		if v != p.tag {
			continue
		}
		if pgid, e := syscall.Getpgid(pid); e == nil && pgid == p.Pid {
			continue // the group signal reached it
		}
		_ = syscall.Kill(pid, sig) // ESRCH: gone in the meantime
	}
	return err
}

// beginEnding records who is ending the process (the first caller wins) and
// when the group gets SIGKILL if it is still there. It reports false if the
// process already ended.
func (p *Process) beginEnding(by Ending, grace time.Duration) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.lc.gone() {
		return false
	}
	if p.lc.ending == "" {
		p.lc.ending = by
	}
	at := time.Now().Add(max(grace, 0))
	if p.lc.killAt.IsZero() || at.Before(p.lc.killAt) {
		p.lc.killAt = at
		select {
		case p.kick <- struct{}{}:
		default: // a kick is already pending; the waiter reads killAt anew
		}
	}
	return true
}

// finish makes the status final.
func (p *Process) finish(leftOpen bool) {
	p.mu.Lock()
	if !p.advanceLocked(phaseFinishing) {
		p.mu.Unlock()
		return
	}
	p.mu.Unlock()
	// The slot under the process limit is free before anyone can see the
	// end: an exec right after a stop must not be refused for it.
	if p.releaseSlot != nil {
		p.releaseSlot()
	}
	p.mu.Lock()
	p.out.flush(p.log)
	p.lc.leftOpen = leftOpen
	p.lc.endedAt = time.Now()
	switch p.lc.ending {
	case EndedByStop, EndedByShutdown, EndedByRestart, EndedByTimeout:
	default:
		p.lc.ending = EndedByExit
		if p.lc.exit.Signal != 0 {
			p.lc.ending = EndedBySignal
		}
	}
	p.advanceLocked(phaseEnded)
	p.releaseLocked()
	p.mu.Unlock()
	p.endLife()
	p.out.stopReplies()
	if p.onEnd != nil {
		p.onEnd(p)
	}
}

// releaseLocked closes the process's descriptors once it has ended and its
// output reached EOF: a finished process must not hold a terminal (or
// pipes) for as long as its record is kept.
func (p *Process) releaseLocked() {
	if p.lc.ended() && p.openEOF == 0 && !p.released {
		p.released = true
		_ = p.proc.Close() // nothing is blocked on them any more
	}
}

// Ended reports whether the process has ended and its status is final.
func (p *Process) Ended() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lc.ended()
}

// WaitEnd blocks until the process has ended (exited and its output drained),
// the deadline passes, or ctx is done.
func (p *Process) WaitEnd(ctx context.Context, deadline time.Time) Reason {
	return p.Await(ctx, deadline, Until{}).Reason
}

// Write sends input to the process.
func (p *Process) Write(ctx context.Context, input []byte, closeInput bool) error {
	p.mu.Lock()
	over := p.lc.over()
	p.mu.Unlock()
	if over {
		return p.notRunning()
	}
	p.beforeWrite()
	if len(input) > 0 {
		if err := p.proc.WriteInput(ctx, input); err != nil {
			return err
		}
	}
	if closeInput {
		return p.proc.CloseInput()
	}
	return nil
}

// StopResult is the outcome of Stop.
type StopResult struct {
	Gone   bool // the process has been reaped
	Killed bool // SIGKILL was needed
}

// Stop sends sig to the process group and to its tagged descendants, and
// SIGKILL to what is still there after grace. It also works after the
// command itself exited, while what it started runs on. It returns once the
// whole tree is gone or, failing that, shortly after the SIGKILL. by
// records who stops it.
func (p *Process) Stop(ctx context.Context, sig syscall.Signal, grace time.Duration, by Ending) (StopResult, error) {
	if !p.beginEnding(by, grace) {
		return StopResult{}, p.notRunning()
	}
	if err := p.signalTree(sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return StopResult{}, fmt.Errorf("sending %s: %w", SignalName(sig), err)
	}
	p.hangUpIgnorers(sig) // an interactive shell ignores SIGTERM (signal.go)
	o := p.awaitEnd(ctx, sig, time.Now().Add(max(grace, 0)+p.timing.killWait))
	if o.Reason == ReasonCancelled {
		return StopResult{}, ctx.Err()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return StopResult{Gone: o.Reason == ReasonExited, Killed: p.lc.killed}, nil
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
		StdoutBytes:    p.log.total[0],
		StderrBytes:    p.log.total[1],
		OutputLeftOpen: p.lc.leftOpen,
		DroppedReplies: p.out.droppedReplies(),
	}
	if p.stdinErr != nil {
		in.StdinError = p.stdinErr.Error()
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
}

// Output is a slice of a process's output.
type Output struct {
	Stdout, Stderr []byte
	StartSeq       int64
	NextSeq        int64
	Evicted        bool // some of the output asked for is no longer retained
	Capped         bool // the byte budget left some of it out
	// Screen is the rendered terminal, when asked for or while a
	// full-screen program runs; nil otherwise and in pipe mode.
	Screen *screen.Snapshot
}

// Snapshot returns the summary and the selected output, consistently.
func (p *Process) Snapshot(q Query) (Info, Output) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.out.flush(p.log)
	var r readResult
	if q.Since == nil {
		r = p.log.readTail(q.MaxBytes, q.Streams)
	} else {
		r = p.log.readFrom(*q.Since, q.MaxBytes, q.Streams)
	}
	out := Output{
		Stdout: r.stdout, Stderr: r.stderr,
		StartSeq: r.start, NextSeq: r.next,
		Evicted: r.evicted, Capped: r.capped,
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
	return p.log.end
}

// Close releases the process's descriptors and joins its goroutines. It
// does not signal the process; call Stop first for that.
func (p *Process) Close() {
	p.closeOnce.Do(func() {
		close(p.stopWait)
		p.endLife()
		_ = p.proc.Close() // unblocks the readers
		p.readers.Wait()
		p.out.stopReplies()
		<-p.waiterEnd
		p.finish(true)
	})
}
