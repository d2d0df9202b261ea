package session

import (
	"context"
	"io"
	"strings"
	"syscall"
	"time"

	"github.com/yieldshell/yieldshell/prompt"
	"github.com/yieldshell/yieldshell/pty"
)

// Engine starts commands and reaps them: the boundary between the session
// and the operating system. A server's is package pty's [pty.Reaper]
// ([LocalOptions]); tests give a fake, under which the lifecycle (ends,
// stops, timeouts, restarts) runs on testing/synctest's clock.
type Engine interface {
	// Start starts one command, in a session and process group of its own,
	// under a PTY or pipes as o says.
	Start(ctx context.Context, o pty.Options) (EngineProcess, error)
	// EndTagged ends, with SIGTERM and after grace SIGKILL, every process
	// whose tag (see [Manager]) begins with prefix: the descendants that
	// escaped commands which had already ended. ctx cuts the grace short.
	EndTagged(ctx context.Context, prefix string, grace time.Duration)
	// Close stops reaping. The Manager calls it last in Shutdown, once
	// every process it started has ended.
	Close() error
}

// EngineProcess is one command an [Engine] started, as the kernel sees it:
// what a [Process] needs of it. [pty.Process] is the real one, on every
// system.
//
// A process's pid is also its process group and session; its tree is the
// group and every descendant whose environment carries the process's tag,
// which is how descendants that left the group are found.
type EngineProcess interface {
	Pid() int
	TTY() bool // under a PTY, not pipes

	// Output: the terminal in TTY mode (Stderr is nil then), stdout and
	// stderr in pipe mode. A read returns io.EOF once nothing holds the
	// other end, or after Close.
	Stdout() io.Reader
	Stderr() io.Reader

	// Input. WriteCommand is WriteInput for an integrated shell at its
	// prompt: it first discards replies to queries nobody read.
	// WriteReply writes a reply to a query only while process group pgrp
	// (0: anyone) is in the foreground, and reports whether it did.
	WriteInput(ctx context.Context, b []byte) error
	WriteCommand(ctx context.Context, b []byte) error
	WriteReply(ctx context.Context, pgrp int, b []byte) (bool, error)
	CloseInput() error

	// The terminal's state, and what waits in it: Pending reports output
	// the program wrote that no reader took yet, Typeahead input written
	// that the program has not read. InputPath is what /proc shows for
	// the program's input ("" where it cannot be asked).
	Size() (cols, rows uint16)
	Resize(cols, rows uint16) error
	ForegroundPgrp() (int, error)
	Modes() (echo, canonical bool, err error)
	InputPath() string
	Pending() bool
	Typeahead() bool

	// Signals: to the process group only, to the whole tree, and a
	// hang-up to the members of the terminal's session that ignore sig
	// (an interactive shell ignores SIGTERM).
	Signal(sig syscall.Signal) error
	SignalTree(sig syscall.Signal, key, value string) error
	HangUpIgnorers(sig syscall.Signal)

	// The tree: whether anything of it lives, and a wait until nothing
	// does (or ctx is done).
	TreeAlive(key, value string) bool
	AwaitTree(ctx context.Context, key, value string) error

	// The end: Done is closed once the direct child is reaped, and Status
	// is its exit status from then on. Close releases the descriptors
	// (the readers get EOF); it does not signal anything.
	Done() <-chan struct{}
	Status() pty.ExitStatus
	Close() error
}

// Prober is what input-wait detection asks the kernel: what the processes
// that could read a program's input are doing, and whether a thread seen
// blocked reading has woken up since. [prompt.Prober] is the real one.
type Prober interface {
	Inspect(in prompt.Input) prompt.Probe
	Switches(t prompt.Task) (uint64, bool)
	// Programs names the processes that could read in's input (a pager
	// or an editor is told by its name).
	Programs(in prompt.Input) []string
	// Listening returns the TCP ports the session sid listens on.
	Listening(sid int) []int
}

// The real engine and prober satisfy the interfaces on every system
// (GOOS=windows go vet checks the Windows engine).
var (
	_ EngineProcess = (*pty.Process)(nil)
	_ Prober        = (*prompt.Prober)(nil)
)

// reaperEngine is a [pty.Reaper] as an [Engine].
type reaperEngine struct{ r *pty.Reaper }

func (e reaperEngine) Start(ctx context.Context, o pty.Options) (EngineProcess, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p, err := e.r.Start(o)
	if err != nil {
		return nil, err // not a typed nil in the interface
	}
	return p, nil
}

func (e reaperEngine) EndTagged(ctx context.Context, prefix string, grace time.Duration) {
	endTagged(ctx, func(v string) bool { return strings.HasPrefix(v, prefix) }, grace)
}

func (e reaperEngine) Close() error { return e.r.Close() }
