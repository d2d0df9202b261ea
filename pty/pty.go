package pty

import (
	"context"
	"errors"
	"io"
	"syscall"
	"time"
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
	// Cols and Rows give the terminal size; zero means 120×40.
	Cols, Rows uint16
}

// ExitStatus is how a process ended.
type ExitStatus struct {
	Code   int            // exit code; -signo when killed by a signal
	Signal syscall.Signal // the signal that killed it, or 0
}

// ErrNotTTY is returned by terminal-only operations on a pipe-mode process.
var ErrNotTTY = errors.New("not a terminal")

// Process is one started command. Its pid is also its process-group id and
// session id.
type Process struct{}

// Reaper starts commands and collects their exit statuses (SIGCHLD-driven
// wait4(-1)). It also reaps orphans the server adopted as a child subreaper.
type Reaper struct{}

// NewReaper starts the reaping goroutine. Close stops it.
func NewReaper() (*Reaper, error) { panic("unimplemented") }

// Close stops the reaping goroutine and waits for it.
func (r *Reaper) Close() error { panic("unimplemented") }

// Start starts a command in a new session under a PTY or pipes.
func (r *Reaper) Start(opts Options) (*Process, error) { panic("unimplemented") }

// SetChildSubreaper makes the calling process the reaper of its orphaned
// descendants (Linux PR_SET_CHILD_SUBREAPER).
func SetChildSubreaper() error { panic("unimplemented") }

// Pid returns the process id (== pgid == sid).
func (p *Process) Pid() int { panic("unimplemented") }

// TTY reports whether the process runs under a pseudo-terminal.
func (p *Process) TTY() bool { panic("unimplemented") }

// Stdout returns the terminal's output in TTY mode, or stdout in pipe mode.
// Read returns io.EOF once no process holds the other end (EIO on the master
// is reported as io.EOF) or after Close.
func (p *Process) Stdout() io.Reader { panic("unimplemented") }

// Stderr returns the stderr pipe in pipe mode, nil in TTY mode.
func (p *Process) Stderr() io.Reader { panic("unimplemented") }

// WriteInput writes all of b to the process's input (the terminal, or the
// stdin pipe), giving up when ctx is done.
func (p *Process) WriteInput(ctx context.Context, b []byte) error { panic("unimplemented") }

// CloseInput ends the input: closes the stdin pipe, or, in TTY mode, sends the
// terminal's EOF character.
func (p *Process) CloseInput() error { panic("unimplemented") }

// Signal sends sig to the process group.
func (p *Process) Signal(sig syscall.Signal) error { panic("unimplemented") }

// Resize sets the terminal size (delivers SIGWINCH). ErrNotTTY in pipe mode.
func (p *Process) Resize(cols, rows uint16) error { panic("unimplemented") }

// Size returns the terminal size.
func (p *Process) Size() (cols, rows uint16) { panic("unimplemented") }

// ForegroundPgrp returns the terminal's foreground process group.
func (p *Process) ForegroundPgrp() (int, error) { panic("unimplemented") }

// Echo reports whether the terminal echoes input (false at a password prompt).
func (p *Process) Echo() (bool, error) { panic("unimplemented") }

// Done is closed when the process has exited and been reaped.
func (p *Process) Done() <-chan struct{} { panic("unimplemented") }

// Status returns the exit status; valid once Done is closed.
func (p *Process) Status() ExitStatus { panic("unimplemented") }

// Close closes every descriptor the server holds for the process, which
// unblocks readers. It does not signal the process.
func (p *Process) Close() error { panic("unimplemented") }

var _ = time.Second
