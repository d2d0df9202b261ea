package session

import (
	"context"
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/yieldshell/yieldshell/pty"
)

// engineRef holds a Process's [EngineProcess] and its life. The Process
// reads it without its lock (p.engine) and replaces it once, at the end,
// with an [endedEngine] and no life: what the kernel's process and its
// descriptors cost (about 700 bytes with a terminal) and the life's
// context (about 180) are not kept for as long as the record is (issue
// 38 item 5).
type engineRef struct {
	EngineProcess
	// life is done once the process ended or was closed; nil once the
	// engine is an endedEngine (its life is over).
	life    context.Context
	endLife context.CancelFunc
}

// engine returns the process's engine: the started command, or once the
// process ended and its descriptors were released, an [endedEngine].
func (p *Process) engine() EngineProcess { return p.eng.Load().EngineProcess }

// endEngine replaces the engine of a process that ended and whose
// descriptors are closed with what an ended one still answers. Called
// with p.mu held, once.
func (p *Process) endEngine() {
	p.endLife()
	e := p.engine()
	p.eng.Store(&engineRef{EngineProcess: &endedEngine{pid: e.Pid(), tty: e.TTY(), status: e.Status()}})
}

// endLife ends the process's life: Gone is closed, and what runs on the
// life's context (the reply writer, exec's stdin writer) stops.
func (p *Process) endLife() {
	if r := p.eng.Load(); r.endLife != nil {
		r.endLife()
	}
}

// Gone is closed once the process has ended or was closed.
func (p *Process) Gone() <-chan struct{} {
	if life := p.eng.Load().life; life != nil {
		return life.Done()
	}
	c := make(chan struct{}) // nothing waits long on an ended one's
	close(c)
	return c
}

// endedEngine is the engine of a process that ended: its tree is gone (or
// it was closed) and its descriptors are closed, so it answers as a closed
// [pty.Process] does, and signals nothing (its pid may be reused).
type endedEngine struct {
	pid    int
	status pty.ExitStatus
	tty    bool
}

func (e *endedEngine) Pid() int  { return e.pid }
func (e *endedEngine) TTY() bool { return e.tty }

// endedReader is an output stream at its end.
type endedReader struct{}

func (endedReader) Read([]byte) (int, error) { return 0, io.EOF }

func (e *endedEngine) Stdout() io.Reader { return endedReader{} }

func (e *endedEngine) Stderr() io.Reader {
	if e.tty {
		return nil
	}
	return endedReader{}
}

func (e *endedEngine) WriteInput(context.Context, []byte) error {
	return fmt.Errorf("writing input: %w", pty.ErrInputClosed)
}

func (e *endedEngine) WriteCommand(ctx context.Context, b []byte) error {
	return e.WriteInput(ctx, b)
}

func (e *endedEngine) WriteReply(context.Context, int, []byte) (bool, error) {
	return false, fmt.Errorf("writing reply: %w", pty.ErrInputClosed)
}

func (e *endedEngine) CloseInput() error {
	return fmt.Errorf("closing input: %w", pty.ErrInputClosed)
}

func (e *endedEngine) Size() (cols, rows uint16) { return 0, 0 }

// terminal is the error of a terminal operation: the terminal is closed.
func (e *endedEngine) terminal(op string) error {
	if !e.tty {
		return fmt.Errorf("%s: %w", op, pty.ErrNotTTY)
	}
	return fmt.Errorf("%s: %w", op, os.ErrClosed)
}

func (e *endedEngine) Resize(uint16, uint16) error { return e.terminal("resizing terminal") }

func (e *endedEngine) ForegroundPgrp() (int, error) {
	return 0, e.terminal("reading foreground process group")
}

func (e *endedEngine) Modes() (echo, canonical bool, err error) {
	return false, false, e.terminal("reading terminal modes")
}

func (e *endedEngine) InputPath() string { return "" }
func (e *endedEngine) Pending() bool     { return false }
func (e *endedEngine) Typeahead() bool   { return false }

func (e *endedEngine) Signal(syscall.Signal) error {
	return fmt.Errorf("signalling process group %d: %w", e.pid, syscall.ESRCH)
}

func (e *endedEngine) SignalTree(sig syscall.Signal, _, _ string) error { return e.Signal(sig) }
func (e *endedEngine) HangUpIgnorers(syscall.Signal)                    {}
func (e *endedEngine) TreeAlive(_, _ string) bool                       { return false }
func (e *endedEngine) AwaitTree(context.Context, string, string) error  { return nil }

// Done returns a closed channel; nothing waits on it after the end, so it
// is made when asked rather than kept.
func (e *endedEngine) Done() <-chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}

func (e *endedEngine) Status() pty.ExitStatus { return e.status }
func (e *endedEngine) Close() error           { return nil }
