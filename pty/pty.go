package pty

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Options describe one command to start.
type Options struct {
	Path string   // program to run, resolved by the caller (e.g. "/bin/sh")
	Args []string // argv, including argv[0]
	Dir  string   // working directory (absolute, existing)
	Env  []string // complete environment, "KEY=value"

	// TTY selects a pseudo-terminal (stdin, stdout and stderr are the
	// terminal) instead of three pipes.
	TTY bool
	// Cols and Rows give the terminal size; zero means [DefaultCols] and
	// [DefaultRows].
	Cols, Rows uint16
}

// ExitStatus is how a process ended.
type ExitStatus struct {
	Code   int            // exit code; -signo when killed by a signal
	Signal syscall.Signal // the signal that killed it, or 0
}

// ErrNotTTY is returned by terminal-only operations ([Process.Resize],
// [Process.ForegroundPgrp], [Process.Modes]) on a pipe-mode process.
var ErrNotTTY = errors.New("not a terminal")

// ErrInputClosed is returned (wrapped) by [Process.WriteInput] when nothing can receive
// the bytes any more: the stdin pipe has no reader, the terminal has no
// process holding it, or the input was closed by [Process.CloseInput] or
// [Process.Close]. Callers
// use it to tell "the program is gone" from a timeout.
var ErrInputClosed = errors.New("input closed")

// errReaperClosed is returned by Start after Close, because nothing would
// ever reap the child.
var errReaperClosed = errors.New("reaper closed")

// DefaultCols and DefaultRows are the terminal size a command gets when
// none is asked for: wide enough that agents' usual output does not wrap.
const (
	DefaultCols = 120
	DefaultRows = 40
)

const defaultEOFWriteTimeout = 2 * time.Second // see Reaper.EOFWriteTimeout

// Process is one started command. Its pid is also its process-group id and
// session id.
type Process struct {
	pid int
	io  streams

	// wsem serialises writers (a write deadline is per descriptor, so two
	// concurrent WriteInputs would cut each other short) while still letting
	// a waiting writer give up when its context ends.
	wsem chan struct{}
	// lineOpen: the last byte written did not end a line, so in canonical
	// mode the terminal holds an unfinished line (guarded by wsem).
	lineOpen bool

	done   chan struct{}
	status ExitStatus // written by the reaper before done is closed

	eofWriteTimeout time.Duration // see Reaper.EOFWriteTimeout

	// closed and inputClosed are set before the descriptors are closed,
	// so an operation that then fails can say why: the runtime reports a
	// closed file to deadline and raw-conn calls with an error that is not
	// os.ErrClosed and cannot be matched from outside internal/poll.
	closed, inputClosed atomic.Bool

	closeOnce sync.Once
	closeErr  error
}

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

func newReaper(unknown func(pid int, ws unix.WaitStatus)) *Reaper {
	r := &Reaper{
		procs:   make(map[int]*Process),
		unknown: unknown,
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
	})
	return nil
}

// Start starts a command in a new session under a PTY or pipes.
//
// A nil Env inherits the server's environment, as with os/exec.
func (r *Reaper) Start(opts Options) (*Process, error) {
	p, err := r.start(opts)
	if err != nil {
		return nil, fmt.Errorf("starting %q: %w", opts.Path, err)
	}
	return p, nil
}

func (r *Reaper) start(opts Options) (*Process, error) {
	if opts.Path == "" {
		return nil, errors.New("empty path")
	}
	if err := checkDir(opts.Dir); err != nil {
		return nil, err
	}
	args := opts.Args
	if len(args) == 0 {
		args = []string{opts.Path}
	}
	p := &Process{
		wsem:            make(chan struct{}, 1),
		done:            make(chan struct{}),
		eofWriteTimeout: cmp.Or(r.EOFWriteTimeout, defaultEOFWriteTimeout),
	}
	var err error
	if opts.TTY {
		p.io, err = openTerminal(opts.Cols, opts.Rows, &p.closed)
	} else {
		p.io, err = openPipes(&p.closed, &p.inputClosed)
	}
	if err != nil {
		return nil, err
	}
	// The child's ends are closed here once the child has them (or the
	// start failed); the server's ends only if it failed.
	defer p.io.closeChild()
	fail := func(err error) (*Process, error) {
		_ = p.io.close()
		return nil, err
	}
	files, sys := p.io.child()
	setDeathSignal(sys)
	attr := &os.ProcAttr{Dir: opts.Dir, Env: opts.Env, Files: files, Sys: sys}

	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return fail(errReaperClosed)
	}
	proc, err := os.StartProcess(opts.Path, args, attr)
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
		return fail(err)
	}
	// Releases the pidfd only; reaping stays with the Reaper.
	_ = proc.Release()
	return p, nil
}

// checkDir says what is wrong with a working directory: the fork would
// report a bad one as "fork/exec <path>: no such file or directory", which
// blames the program.
func checkDir(dir string) error {
	if dir == "" {
		return nil
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("chdir: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("chdir %s: %w", dir, unix.ENOTDIR)
	}
	return nil
}

// Pid returns the process id (== pgid == sid).
func (p *Process) Pid() int { return p.pid }

// TTY reports whether the process runs under a pseudo-terminal.
func (p *Process) TTY() bool {
	_, ok := p.io.(*terminal)
	return ok
}

// Stdout returns the terminal's output in TTY mode, or stdout in pipe mode.
// Read returns io.EOF once no process holds the other end (EIO on the master
// is reported as io.EOF) or after Close.
//
// EOF in TTY mode can come long after the process exits, while a descendant
// still holds the terminal; use [Process.Done] for the exit itself.
func (p *Process) Stdout() io.Reader { return p.io.stdout() }

// Stderr returns the stderr pipe in pipe mode, nil in TTY mode.
func (p *Process) Stderr() io.Reader { return p.io.stderr() }

// WriteInput writes all of b to the process's input (the terminal, or the
// stdin pipe), giving up when ctx is done.
//
// When it gives up part of b may have been written. It returns an error
// wrapping [ErrInputClosed] when nothing can read the input any more, and
// ctx's error when ctx ended first. Concurrent calls are serialised.
//
// In TTY mode "nothing can read" means no process holds the terminal, which
// is checked before writing: bytes written while the last holder exits are
// dropped by the kernel without an error.
func (p *Process) WriteInput(ctx context.Context, b []byte) error {
	if err := p.writeInput(ctx, b); err != nil {
		return fmt.Errorf("writing input: %w", err)
	}
	return nil
}

func (p *Process) writeInput(ctx context.Context, b []byte) error {
	select {
	case p.wsem <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-p.wsem }()
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := p.io.checkInput(); err != nil {
		return p.mapWriteErr(err)
	}
	f := p.io.input()
	dl, _ := ctx.Deadline() // zero (no deadline) clears an earlier one
	if err := f.SetWriteDeadline(dl); err != nil {
		return p.mapWriteErr(err)
	}
	// A past deadline wakes a blocked write at once when ctx is cancelled.
	fired := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		_ = f.SetWriteDeadline(time.Unix(1, 0))
		close(fired)
	})
	defer func() {
		if !stop() {
			// Let it finish so its deadline cannot land on the next call.
			<-fired
		}
	}()
	n, err := f.Write(b)
	if n > 0 {
		p.lineOpen = !strings.ContainsRune("\n\r\x03\x04\x15", rune(b[n-1]))
	}
	if err == nil {
		return nil
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		// The descriptor's timer can fire a hair before ctx's.
		return context.DeadlineExceeded
	}
	return p.mapWriteErr(err)
}

func (p *Process) mapWriteErr(err error) error {
	switch {
	case errors.Is(err, ErrInputClosed), p.inputClosed.Load(),
		errors.Is(err, syscall.EPIPE), errors.Is(err, syscall.EIO), errors.Is(err, os.ErrClosed):
		return ErrInputClosed
	}
	return err
}

// CloseInput ends the input: closes the stdin pipe, or, in TTY mode, sends the
// terminal's EOF character.
//
// In TTY mode the EOF character (VEOF, normally ^D) only means end of input
// in canonical mode and at the start of a line: after other input on the line
// it just hands that partial line to the reader, and in raw mode (editors,
// readline) it is an ordinary byte. Send a newline first when unsure.
func (p *Process) CloseInput() error {
	if err := p.io.closeInput(p); err != nil {
		return fmt.Errorf("closing input: %w", err)
	}
	return nil
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

// InputPath is how /proc names the command's input: "/dev/pts/N" in TTY
// mode, "pipe:[inode]" for the stdin pipe; "" if unknown.
func (p *Process) InputPath() string { return p.io.inputPath() }

// Done is closed when the process has exited and been reaped.
func (p *Process) Done() <-chan struct{} { return p.done }

// Status returns the exit status; valid once [Process.Done] is closed.
func (p *Process) Status() ExitStatus {
	select {
	case <-p.done:
		return p.status
	default:
		// Reading status before done would race with the reaper.
		return ExitStatus{}
	}
}

// Close closes every descriptor the server holds for the process, which
// unblocks readers. It does not signal the process.
//
// In TTY mode closing the master hangs the terminal up, so the kernel sends
// SIGHUP to the foreground group anyway. Close is idempotent.
func (p *Process) Close() error {
	p.closeOnce.Do(func() {
		p.closed.Store(true)
		p.inputClosed.Store(true)
		if err := p.io.close(); err != nil && !errors.Is(err, os.ErrClosed) {
			p.closeErr = fmt.Errorf("closing process %d: %w", p.pid, err)
		}
	})
	return p.closeErr
}

// lineOpenNow reports whether the last byte written left a line open.
func (p *Process) lineOpenNow() bool {
	p.wsem <- struct{}{}
	defer func() { <-p.wsem }()
	return p.lineOpen
}
