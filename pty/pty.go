//go:build unix

package pty

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Reaper starts commands and collects their exit statuses (SIGCHLD-driven
// wait4(-1)). It also reaps orphans the server adopted as a child subreaper.
type Reaper struct {
	// mu is held around fork+registration in Start and around the wait4
	// loop. Without it a child that exits at once could be reaped before it
	// is registered, its status lost, and its pid reused by the next Start.
	mu     sync.Mutex
	procs  map[int]*Process
	closed bool

	// unknown, if set, is told about every reaped pid that was not started
	// through this Reaper (tests use it to observe orphan reaping). It runs
	// with mu held, so it must not block or call into the Reaper.
	unknown func(pid int, ws unix.WaitStatus)

	// EOFWriteTimeout bounds CloseInput in TTY mode (default 2 s): the EOF
	// byte can only block when the terminal's input queue is full, and
	// CloseInput has no context of its own. Set it before Start.
	EOFWriteTimeout time.Duration

	terminals ahead[*terminal]
	pipes     ahead[*pipes]

	sigc      chan os.Signal
	quit      chan struct{}
	stopped   chan struct{}
	closeOnce sync.Once
}

// NewReaper starts the reaping goroutine. [Reaper.Close] stops it.
//
// Only one Reaper may exist in a process at a time: each one waits for any
// child, so two would steal each other's statuses.
func NewReaper() (*Reaper, error) {
	return newReaper(nil), nil
}

// procSys is empty here: the pid names the process group, and the Reaper
// holds what waiting needs.
type procSys struct{}

func newReaper(unknown func(pid int, ws unix.WaitStatus)) *Reaper {
	r := &Reaper{
		procs:     make(map[int]*Process),
		unknown:   unknown,
		terminals: ahead[*terminal]{open: openPair},
		pipes:     ahead[*pipes]{open: openPipeSet},
		// One slot is enough: the loop reaps everything that is ready, so
		// signals arriving meanwhile only need to leave one wake-up behind.
		sigc:    make(chan os.Signal, 1),
		quit:    make(chan struct{}),
		stopped: make(chan struct{}),
	}
	signal.Notify(r.sigc, syscall.SIGCHLD)
	go r.loop()
	return r
}

func (r *Reaper) loop() {
	defer close(r.stopped)
	// Children that ended before Notify took effect sent no signal we saw.
	r.reap()
	for {
		select {
		case <-r.quit:
			return
		case <-r.sigc:
			r.reap()
		}
	}
}

func (r *Reaper) reap() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for {
		var ws unix.WaitStatus
		pid, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil || pid <= 0 {
			// ECHILD: no children at all; 0: none has changed state.
			return
		}
		p := r.procs[pid]
		if p == nil {
			if r.unknown != nil {
				r.unknown(pid, ws)
			}
			continue
		}
		var st ExitStatus
		switch {
		case ws.Exited():
			st.Code = ws.ExitStatus()
		case ws.Signaled():
			st.Signal = ws.Signal()
			st.Code = -int(st.Signal)
		default:
			// Stopped or continued: not requested (no WUNTRACED), but a
			// status that is not an ending must not end the process.
			continue
		}
		delete(r.procs, pid)
		p.status = st
		close(p.done)
	}
}

// Close stops the reaping goroutine and waits for it. Processes still running
// are no longer reaped: their [Process.Done] channels stay open.
func (r *Reaper) Close() error {
	r.closeOnce.Do(func() {
		r.mu.Lock()
		r.closed = true
		r.mu.Unlock()
		signal.Stop(r.sigc)
		close(r.quit)
		<-r.stopped
		r.terminals.close()
		r.pipes.close()
	})
	return nil
}

// errNotDir is the system's word for a working directory that is not one.
const errNotDir = unix.ENOTDIR

// openStreams opens the terminal or the pipes the command will run with.
// They are the ones opened ahead, if ready (see [ahead]).
func (r *Reaper) openStreams(opts Options, p *Process) (streams, error) {
	if opts.TTY {
		if t, ok := r.terminals.take(); ok {
			return t.attach(opts.Cols, opts.Rows, &p.closed)
		}
		return openTerminal(opts.Cols, opts.Rows, &p.closed)
	}
	if ps, ok := r.pipes.take(); ok {
		return ps.attach(&p.closed, &p.inputClosed)
	}
	return openPipes(&p.closed, &p.inputClosed)
}

// openAhead opens the streams of the next start of that mode (see
// [ahead]).
func (r *Reaper) openAhead(tty bool) {
	if tty {
		r.terminals.refill()
	} else {
		r.pipes.refill()
	}
}

// spawn forks and execs the command in a session of its own with the
// streams' child ends, and registers it for reaping.
func (r *Reaper) spawn(opts Options, p *Process) error {
	defer r.openAhead(opts.TTY) // the next start's, while this child runs
	args := opts.Args
	if len(args) == 0 {
		args = []string{opts.Path}
	}
	// The child changes to the directory opened now, not to whatever the
	// path names by the time it forks.
	dir, unpin, err := pinDir(opts.Dir)
	if err != nil {
		return err
	}
	defer unpin()
	if opts.DirWas != nil {
		if fi, err := os.Stat(dir); err != nil || !os.SameFile(opts.DirWas, fi) {
			return fmt.Errorf("chdir %s: not the directory the user approved (it was moved or replaced)", opts.Dir)
		}
	}
	files, sys := p.io.child()
	if opts.Confine == nil {
		// Bound to the forking thread, which a confining fork discards
		// at once: the backstop would kill the child.
		setDeathSignal(sys)
	}
	attr := &os.ProcAttr{Dir: dir, Env: opts.Env, Files: files, Sys: sys}
	if opts.Prepare != nil {
		opts.Prepare(childTTY(opts, p), attr)
	}

	p.born = bootTicks()
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return errReaperClosed
	}
	var proc *os.Process
	fork := func() (err error) {
		proc, err = os.StartProcess(opts.Path, args, attr)
		return err
	}
	err = runFork(opts, p, fork)
	if err == nil {
		p.pid = proc.Pid
		r.procs[p.pid] = p
	}
	r.mu.Unlock()
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			// Drop "fork/exec <path>": Start already names the path.
			err = pe.Err
		}
		return err
	}
	// Releases the pidfd only; reaping stays with the Reaper.
	_ = proc.Release()
	return nil
}

// runFork calls fork, through opts.Confine when set.
func runFork(opts Options, p *Process, fork func() error) error {
	if opts.Confine == nil {
		return fork()
	}
	return opts.Confine(childTTY(opts, p), fork)
}

// childTTY is the child's terminal, "" with pipes.
func childTTY(opts Options, p *Process) string {
	if opts.TTY {
		return p.io.inputPath()
	}
	return ""
}

// Signal sends sig to the process group.
//
// When no process of the group is left it returns an error wrapping
// unix.ESRCH. After Done the group id may in principle be reused once the
// whole group is gone, as with any kill(2) by number.
func (p *Process) Signal(sig syscall.Signal) error {
	if err := unix.Kill(-p.pid, sig); err != nil {
		return fmt.Errorf("signalling process group %d: %w", p.pid, err)
	}
	return nil
}

// control runs fn on the terminal's descriptor; ErrNotTTY in pipe mode.
func (p *Process) control(fn func(fd int) error) error {
	t, ok := p.io.(*terminal)
	if !ok {
		return ErrNotTTY
	}
	return t.control(fn)
}

// Resize sets the terminal size (delivers SIGWINCH); [ErrNotTTY] in pipe mode.
//
// A zero dimension is refused: programs treat 0×0 as "size unknown" and
// fall back to guesses. After Close the terminal operations (Resize,
// ForegroundPgrp, Modes) return an error wrapping os.ErrClosed.
func (p *Process) Resize(cols, rows uint16) error {
	if cols == 0 || rows == 0 {
		return fmt.Errorf("resizing terminal: invalid size %dx%d", cols, rows)
	}
	err := p.control(func(fd int) error {
		return unix.IoctlSetWinsize(fd, unix.TIOCSWINSZ, &unix.Winsize{Col: cols, Row: rows})
	})
	if err != nil {
		return fmt.Errorf("resizing terminal: %w", err)
	}
	return nil
}

// Size returns the terminal size; zero in pipe mode or after Close.
func (p *Process) Size() (cols, rows uint16) {
	_ = p.control(func(fd int) error {
		ws, err := unix.IoctlGetWinsize(fd, unix.TIOCGWINSZ)
		if err == nil {
			cols, rows = ws.Col, ws.Row
		}
		return err
	})
	return cols, rows
}

// ForegroundPgrp returns the terminal's foreground process group.
func (p *Process) ForegroundPgrp() (int, error) {
	var pgrp int
	err := p.control(func(fd int) (err error) {
		pgrp, err = unix.IoctlGetInt(fd, unix.TIOCGPGRP)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("reading foreground process group: %w", err)
	}
	return pgrp, nil
}

// Modes reports the terminal's echo and canonical (line-editing) modes. A
// program that reads a secret turns echo off and keeps canonical mode;
// readline and full-screen programs turn both off and echo by themselves.
func (p *Process) Modes() (echo, canonical bool, err error) {
	t, ok := p.io.(*terminal)
	if !ok {
		return false, false, fmt.Errorf("reading terminal modes: %w", ErrNotTTY)
	}
	tio, err := t.termios()
	if err != nil {
		return false, false, fmt.Errorf("reading terminal modes: %w", err)
	}
	return tio.Lflag&unix.ECHO != 0, tio.Lflag&unix.ICANON != 0, nil
}
