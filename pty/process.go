package pty

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Options describe one command to start.
type Options struct {
	Path string   // program to run, resolved by the caller (e.g. "/bin/sh")
	Args []string // argv, including argv[0]
	Dir  string   // working directory (absolute, existing)
	Env  []string // complete environment, "KEY=value"
	// DirWas, when set, is what Dir was when a person approved the start:
	// the directory opened must be that one (os.SameFile), or the start
	// fails.
	DirWas os.FileInfo

	// TTY selects a pseudo-terminal (stdin, stdout and stderr are the
	// terminal) instead of three pipes.
	TTY bool
	// Cols and Rows give the terminal size; zero means [DefaultCols] and
	// [DefaultRows].
	Cols, Rows uint16

	// Confine, when set, performs the fork (Unix): it must call fork
	// exactly once and return its error; it may first restrict the
	// calling thread, which the child inherits (a sandbox). tty is the
	// child's terminal ("" with pipes).
	Confine func(tty string, fork func() error) error
	// Prepare, when set, adjusts the start before the fork (Unix): it
	// may add descriptors after the three standard ones and ask for
	// namespaces (a network jail). tty is the child's terminal ("" with
	// pipes).
	Prepare func(tty string, attr *os.ProcAttr)
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

// Process is one started command. On Unix its pid is also its process-group
// id and session id; on Windows it is the first process of the command's job.
type Process struct {
	pid int
	io  streams
	sys procSys // what the system needs besides the streams

	// wsem serialises writers (a write deadline is per descriptor, so two
	// concurrent WriteInputs would cut each other short) while still letting
	// a waiting writer give up when its context ends.
	wsem chan struct{}
	// lineOpen: the last byte written did not end a line, so in canonical
	// mode the terminal holds an unfinished line (guarded by wsem).
	lineOpen bool
	// written is the newest input written, each byte with its author
	// (guarded by wsem): what the terminal holds unread is its tail.
	written inputHistory

	done   chan struct{}
	status ExitStatus // written by the reaper before done is closed

	// born is the boot clock, in the ticks of /proc's start times, read
	// before the fork: nothing of the command's tree started earlier (0:
	// unknown, or not Linux).
	born uint64

	eofWriteTimeout time.Duration // see Reaper.EOFWriteTimeout

	// closed and inputClosed are set before the descriptors are closed,
	// so an operation that then fails can say why: the runtime reports a
	// closed file to deadline and raw-conn calls with an error that is not
	// os.ErrClosed and cannot be matched from outside internal/poll.
	closed, inputClosed atomic.Bool

	closeOnce sync.Once
	closeErr  error
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
	unlock, err := p.lockInput(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	return p.writeLocked(ctx, b, false)
}

// WriteReply writes b, the terminal's reply to a query, to the terminal's
// input if pgrp is still its foreground process group, and reports whether
// it did. pgrp is the foreground group when the query was read (0: not
// known, as on Windows, and the reply is written whatever the group). The
// group is asked under the same lock as every other write, so no write of
// the agent's comes between the question and the reply.
func (p *Process) WriteReply(ctx context.Context, pgrp int, b []byte) (bool, error) {
	unlock, err := p.lockInput(ctx)
	if err != nil {
		return false, fmt.Errorf("writing reply: %w", err)
	}
	defer unlock()
	if pgrp != 0 {
		if fg, err := p.ForegroundPgrp(); err != nil || fg != pgrp {
			return false, nil
		}
	}
	if err := p.writeLocked(ctx, b, true); err != nil {
		return false, fmt.Errorf("writing reply: %w", err)
	}
	return true, nil
}

// WriteCommand writes b as [Process.WriteInput] does, first discarding
// what the terminal holds unread that was not typed: replies to queries
// nobody read (see [Process.WriteReply]). Input written with WriteInput or
// WriteCommand that is still unread stays, in order, ahead of b. It is for
// typing into a line editor waiting for a command (a shell at its prompt),
// which would take a stale reply for keys.
//
// Only a terminal in non-canonical mode is cleaned, the mode line editors
// read in: in canonical mode the kernel does not count a partial line, so
// what is unread cannot be told. Windows keeps no input queue to clean.
func (p *Process) WriteCommand(ctx context.Context, b []byte) error {
	unlock, err := p.lockInput(ctx)
	if err != nil {
		return fmt.Errorf("writing input: %w", err)
	}
	defer unlock()
	if err := p.discardUntypedLocked(ctx); err != nil {
		return fmt.Errorf("writing input: %w", err)
	}
	if err := p.writeLocked(ctx, b, false); err != nil {
		return fmt.Errorf("writing input: %w", err)
	}
	return nil
}

// lockInput takes the input's write lock, giving up when ctx is done.
func (p *Process) lockInput(ctx context.Context) (unlock func(), err error) {
	select {
	case p.wsem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if err := ctx.Err(); err != nil {
		<-p.wsem
		return nil, err
	}
	return func() { <-p.wsem }, nil
}

// writeLocked writes b under the input's write lock and records it with
// its author: reply, or typed (by the agent or a person).
func (p *Process) writeLocked(ctx context.Context, b []byte, reply bool) error {
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
		p.written.add(b[:n], reply)
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

// Pending reports whether output the program wrote has not reached the
// caller's hands yet: it waits in the terminal or a pipe (including what the
// terminal has not queued for reading yet), or a reader of [Process.Stdout]
// or [Process.Stderr] returned it and has not been called again since.
// A program seen waiting for input while nothing is pending has had every
// byte it wrote before handed on.
func (p *Process) Pending() bool { return p.io.pending() }
