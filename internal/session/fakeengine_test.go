package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/yieldshell/yieldshell/internal/policy"
	"github.com/yieldshell/yieldshell/prompt"
	"github.com/yieldshell/yieldshell/pty"

	"github.com/yieldshell/yieldshell/internal/testdir"
)

// fakeEngine is an Engine with no programs behind it: each command it
// starts is a fakeProc that the test drives (output, exit, descendants)
// and that records every signal it gets, with the moment. Under
// testing/synctest every goroutine of a Process over it blocks on channels
// and timers only, so the lifecycle runs on the bubble's clock and its
// times are exact.
type fakeEngine struct {
	// setup shapes each process as it starts (before the Process follows
	// it); nil: a program that runs until a signal ends it.
	setup func(*fakeProc)

	mu     sync.Mutex
	procs  []*fakeProc
	ctxs   []context.Context // each Start's
	closed bool
}

func (e *fakeEngine) Start(ctx context.Context, o pty.Options) (EngineProcess, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, errors.New("engine closed")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f := newFakeProc(1000+len(e.procs), o)
	e.procs = append(e.procs, f)
	e.ctxs = append(e.ctxs, ctx)
	if e.setup != nil {
		e.setup(f)
	}
	return f, nil
}

// EndTagged ends nothing: a fake engine's processes have no descendants,
// and the machine's are not the test's (a sweep of the real process table
// inside a synctest bubble sleeps on its clock).
func (e *fakeEngine) EndTagged(context.Context, string, time.Duration) {}

func (e *fakeEngine) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closed = true
	return nil
}

// started returns the processes started so far, oldest first.
func (e *fakeEngine) started() []*fakeProc {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.procs)
}

// fakeEvent is a signal a fakeProc got: at, since it started; op says how
// ("tree", "group", or "hangup" for HangUpIgnorers).
type fakeEvent struct {
	at  time.Duration
	op  string
	sig syscall.Signal
}

func (e fakeEvent) String() string { return fmt.Sprintf("%v %s %s", e.at, e.op, SignalName(e.sig)) }

// fakeProc is one fake command: a direct child (the group leader) and,
// optionally, one descendant that left the group and outlives it.
type fakeProc struct {
	pid   int
	opts  pty.Options
	start time.Time
	out   *fakeStream // the terminal, or stdout
	errs  *fakeStream // stderr; nil in TTY mode
	done  chan struct{}
	gone  chan struct{} // closed once nothing of the tree is left

	mu     sync.Mutex
	status pty.ExitStatus
	exited bool
	// ignores: signals to the tree that the whole tree survives (SIGKILL
	// too: a tree stuck in an uninterruptible sleep). hangUpDies: the hang-up (HangUpIgnorers of a signal it
	// ignores) of which it dies, counting from 1; 0: none reach it.
	ignores    map[syscall.Signal]bool
	hangUpDies int
	hangUps    int
	// child: the descendant lives; childHolds: it holds the output open.
	// outsider: something outside the tree holds the output open (a
	// descendant that cleared its environment and left the group).
	child, childHolds, outsider bool
	goneOnce                    sync.Once
	events                      []fakeEvent

	pending, typeahead bool
	// onTypeahead runs once, the next time Typeahead is asked.
	onTypeahead func()
	echo, raw   bool // the terminal's modes: echo on, lines not read whole
	input       []byte
	inputClosed bool
}

func newFakeProc(pid int, o pty.Options) *fakeProc {
	f := &fakeProc{
		pid: pid, opts: o, start: time.Now(),
		out:     newFakeStream(),
		done:    make(chan struct{}),
		gone:    make(chan struct{}),
		ignores: map[syscall.Signal]bool{},
		echo:    true,
	}
	if !o.TTY {
		f.errs = newFakeStream()
	}
	return f
}

// ignore makes the tree survive these signals.
func (f *fakeProc) ignore(sigs ...syscall.Signal) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, s := range sigs {
		f.ignores[s] = true
	}
}

// spawnChild starts the descendant that left the group; holds: it keeps
// the output open.
func (f *fakeProc) spawnChild(holds bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.child, f.childHolds = true, holds
}

// endChild ends the descendant by itself.
func (f *fakeProc) endChild() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.child = false
	f.settleLocked()
}

// holdOutput has something outside the tree hold the output open.
func (f *fakeProc) holdOutput() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.outsider = true
}

// releaseOutput lets go of the output holdOutput held open.
func (f *fakeProc) releaseOutput() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.outsider = false
	f.settleLocked()
}

// exit ends the direct child with code.
func (f *fakeProc) exit(code int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.exitLocked(pty.ExitStatus{Code: code})
}

// setTypeahead says whether input written waits unread in the terminal.
func (f *fakeProc) setTypeahead(on bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.typeahead = on
}

// setPending says whether output the program wrote waits for a reader.
func (f *fakeProc) setPending(on bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pending = on
}

// print writes output as the program would; it returns once a reader took
// it.
func (f *fakeProc) print(s string) { f.out.write([]byte(s)) }

func (f *fakeProc) exitLocked(st pty.ExitStatus) {
	if f.exited {
		return
	}
	f.exited, f.status = true, st
	close(f.done)
	f.settleLocked()
}

func (f *fakeProc) killLocked(sig syscall.Signal, tree bool) {
	f.exitLocked(pty.ExitStatus{Code: -int(sig), Signal: sig})
	if tree {
		f.child = false
	}
	f.settleLocked()
}

// settleLocked closes the output once nothing holds it, and reports the
// tree gone once nothing of it lives.
func (f *fakeProc) settleLocked() {
	if !f.exited {
		return
	}
	if (!f.child || !f.childHolds) && !f.outsider {
		f.out.close()
		f.errs.close()
	}
	if !f.child {
		f.goneOnce.Do(func() { close(f.gone) })
	}
}

func (f *fakeProc) record(op string, sig syscall.Signal) {
	f.events = append(f.events, fakeEvent{at: time.Since(f.start), op: op, sig: sig})
}

// signals returns what the process got so far.
func (f *fakeProc) signals() []fakeEvent {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.events)
}

func (f *fakeProc) Pid() int          { return f.pid }
func (f *fakeProc) TTY() bool         { return f.opts.TTY }
func (f *fakeProc) Stdout() io.Reader { return f.out }

func (f *fakeProc) Stderr() io.Reader {
	if f.errs == nil {
		return nil
	}
	return f.errs
}

func (f *fakeProc) WriteInput(ctx context.Context, b []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.exited || f.inputClosed {
		return pty.ErrInputClosed
	}
	f.input = append(f.input, b...)
	return nil
}

func (f *fakeProc) WriteCommand(ctx context.Context, b []byte) error { return f.WriteInput(ctx, b) }

// WriteReply writes b as input that waits unread in the terminal
// (Typeahead) until the test says the program read it.
func (f *fakeProc) WriteReply(ctx context.Context, pgrp int, b []byte) (bool, error) {
	if err := f.WriteInput(ctx, b); err != nil {
		return false, err
	}
	f.setTypeahead(true)
	return true, nil
}

// written returns the input written so far.
func (f *fakeProc) written() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return string(f.input)
}

func (f *fakeProc) CloseInput() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.inputClosed = true
	return nil
}

func (f *fakeProc) Size() (uint16, uint16)         { return f.opts.Cols, f.opts.Rows }
func (f *fakeProc) Resize(cols, rows uint16) error { return nil }

func (f *fakeProc) ForegroundPgrp() (int, error) {
	if !f.opts.TTY {
		return 0, pty.ErrNotTTY
	}
	return f.pid, nil
}

func (f *fakeProc) Modes() (bool, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.echo, !f.raw, nil
}

func (f *fakeProc) InputPath() string {
	if f.opts.TTY {
		return "/dev/pts/fake"
	}
	return "pipe:[fake]"
}

func (f *fakeProc) Pending() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.pending
}

func (f *fakeProc) Typeahead() bool {
	f.mu.Lock()
	hook := f.onTypeahead
	f.onTypeahead = nil
	on := f.typeahead
	f.mu.Unlock()
	if hook != nil {
		hook()
	}
	return on
}

func (f *fakeProc) Signal(sig syscall.Signal) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("group", sig)
	if f.exited {
		return syscall.ESRCH
	}
	if !f.ignores[sig] {
		f.killLocked(sig, false)
	}
	return nil
}

func (f *fakeProc) SignalTree(sig syscall.Signal, key, value string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("tree", sig)
	if f.exited && !f.child {
		return syscall.ESRCH
	}
	if !f.ignores[sig] {
		f.killLocked(sig, true)
	}
	return nil
}

func (f *fakeProc) HangUpIgnorers(sig syscall.Signal) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("hangup", sig)
	if f.exited || !f.ignores[sig] || f.hangUpDies == 0 {
		return
	}
	if f.hangUps++; f.hangUps >= f.hangUpDies {
		f.killLocked(syscall.SIGHUP, false)
	}
}

func (f *fakeProc) TreeAlive(key, value string) bool {
	select {
	case <-f.gone:
		return false
	default:
		return true
	}
}

func (f *fakeProc) AwaitTree(ctx context.Context, key, value string) error {
	select {
	case <-f.gone:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (f *fakeProc) Done() <-chan struct{} { return f.done }

func (f *fakeProc) Status() pty.ExitStatus {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.status
}

func (f *fakeProc) Close() error {
	f.out.close()
	f.errs.close()
	return nil
}

// fakeStream is an output stream: a write is taken whole by one read.
type fakeStream struct {
	data   chan []byte
	closed chan struct{}
	once   sync.Once
}

func newFakeStream() *fakeStream {
	return &fakeStream{data: make(chan []byte), closed: make(chan struct{})}
}

func (s *fakeStream) write(b []byte) {
	select {
	case s.data <- b:
	case <-s.closed:
	}
}

func (s *fakeStream) Read(b []byte) (int, error) {
	select {
	case d := <-s.data:
		return copy(b, d), nil
	case <-s.closed:
		return 0, io.EOF
	}
}

func (s *fakeStream) close() {
	if s != nil {
		s.once.Do(func() { close(s.closed) })
	}
}

// fakeProber answers every probe with activity (Unknown by default) and
// records when it was asked, from start.
type fakeProber struct {
	mu       sync.Mutex
	start    time.Time
	activity prompt.Activity
	// answer, when set, answers instead of activity.
	answer func(prompt.Input) prompt.Probe
	asked  []time.Duration
	// switches, when set, is what Switches answers for every thread.
	switches func() uint64
	// ports is what Listening answers.
	ports []int
}

func (k *fakeProber) Inspect(in prompt.Input) prompt.Probe {
	k.mu.Lock()
	k.asked = append(k.asked, time.Since(k.start))
	answer, activity := k.answer, k.activity
	k.mu.Unlock()
	if answer != nil {
		return answer(in)
	}
	return prompt.Probe{Activity: activity}
}

// script sets what the prober answers from now on.
func (k *fakeProber) script(activity prompt.Activity, answer func(prompt.Input) prompt.Probe) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.activity, k.answer = activity, answer
}

func (k *fakeProber) Switches(prompt.Task) (uint64, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.switches == nil {
		return 0, false
	}
	return k.switches(), true
}

func (k *fakeProber) Programs(prompt.Input) []string { return nil }

func (k *fakeProber) Listening(int) []int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.ports
}

func (k *fakeProber) times() []time.Duration {
	k.mu.Lock()
	defer k.mu.Unlock()
	return slices.Clone(k.asked)
}

// spec is a command with no side effects, under a PTY or pipes.
func spec(cmd string, tty bool) Spec {
	return Spec{Command: cmd, SideEffects: []string{"NONE"}, TTY: tty}
}

// fakeManager returns a Manager over a fake engine and a fake prober,
// configured by env and shut down at the end of the test. Call it inside a
// synctest bubble.
func fakeManager(t *testing.T, env map[string]string, setup func(*fakeProc)) (*Manager, *fakeEngine, *fakeProber) {
	t.Helper()
	cfg, err := policy.Load(func(k string) string { return env[k] }, testdir.New(t))
	if err != nil {
		t.Fatal(err)
	}
	e := &fakeEngine{setup: setup}
	k := &fakeProber{start: time.Now()}
	m, err := NewManager(cfg, Options{Engine: e, Prober: k, Tag: "fake:0:"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Shutdown(context.Background()) })
	return m, e, k
}
