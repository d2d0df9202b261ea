package executor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"syscall"
	"time"

	"github.com/yieldshell/yieldshell/internal/execproto"
	"github.com/yieldshell/yieldshell/internal/policy"
	"github.com/yieldshell/yieldshell/prompt"
	"github.com/yieldshell/yieldshell/pty"
)

const (
	goos   = runtime.GOOS
	goarch = runtime.GOARCH
)

// writeTimeout bounds one write to a program's input: the server's call
// gives up sooner.
const writeTimeout = time.Minute

// handle answers one request. Writes to a process's input go through its
// writer, in order; a wait for a tree runs on its own; the rest is
// answered at once.
func (e *Executor) handle(c *execproto.Conn, m *execproto.Msg) {
	answer := func(r *execproto.Msg, err error) {
		if r == nil {
			r = &execproto.Msg{}
		}
		r.ID, r.Reply = m.ID, true
		if err != nil {
			r.Err = err.Error()
		}
		_ = c.Send(r)
	}
	if m.Op == execproto.OpStart {
		r, err := e.start(m.Start)
		answer(r, err)
		if err == nil {
			e.announce(r.Proc)
		}
		return
	}
	if isProbe(m.Op) {
		answer(e.probe(m))
		return
	}
	e.mu.Lock()
	p := e.procs[m.Proc]
	e.mu.Unlock()
	if p == nil {
		answer(nil, fmt.Errorf("%s: no process %d", m.Op, m.Proc))
		return
	}
	switch m.Op {
	case execproto.OpInput, execproto.OpCommand, execproto.OpReply:
		select {
		case p.inputs <- func() { answer(e.write(p, m)) }:
		case <-p.quit:
			answer(nil, fmt.Errorf("%s: process %d is closed", m.Op, m.Proc))
		case <-e.life.Done():
		}
	case execproto.OpTree:
		e.wg.Go(func() { answer(e.tree(p, m)) })
	case execproto.OpClose:
		e.mu.Lock()
		if e.procs[p.id] == p {
			delete(e.procs, p.id)
			close(p.quit)
		}
		e.mu.Unlock()
		answer(nil, p.p.Close())
	default:
		answer(e.control(p, m))
	}
}

// start starts a command.
func (e *Executor) start(s *execproto.Start) (*execproto.Msg, error) {
	if s == nil || len(s.Args) == 0 {
		return nil, errors.New("start: no command")
	}
	opts := pty.Options{Path: program(s.Path), Args: s.Args, Dir: s.Dir, Env: environ(os.Environ(), s.Env),
		TTY: s.TTY, Cols: s.Cols, Rows: s.Rows}
	if opts.Dir == "" {
		opts.Dir, _ = os.UserHomeDir()
	}
	pp, err := e.reaper.Start(opts)
	if err != nil {
		return nil, err
	}
	p := &proc{p: pp, inputs: make(chan func(), 64), quit: make(chan struct{})}
	p.key, p.value = tagOf(opts.Env)
	e.mu.Lock()
	if p.value != "" {
		e.tags[p.value] = true
	}
	if e.closed {
		e.mu.Unlock()
		p.kill()
		_ = pp.Close()
		return nil, errors.New("start: the executor is ending")
	}
	e.next++
	p.id = e.next
	e.procs[p.id] = p
	e.follow(p)
	e.mu.Unlock()
	return &execproto.Msg{Proc: p.id, Int: pp.Pid(), Bool: pp.TTY(), Path: pp.InputPath()}, nil
}

// announce lets the pump send a process's output: only after the answer
// to its start, which tells the server its handle.
func (e *Executor) announce(id uint64) {
	e.mu.Lock()
	if p := e.procs[id]; p != nil {
		p.announced = true
		e.signalLocked()
	}
	e.mu.Unlock()
}

// program finds path on this host: as given when it is there, else by
// its name on PATH (the server resolved it on its own host), else
// /bin/sh for a shell.
func program(path string) string {
	if filepath.IsAbs(path) {
		if _, err := os.Stat(path); err == nil {
			return path
		}
	}
	if p, err := exec.LookPath(filepath.Base(path)); err == nil {
		return p
	}
	switch filepath.Base(path) {
	case "bash", "zsh", "fish", "dash":
		return "/bin/sh"
	}
	return path
}

// environ lays over on this host's environment, the later value of a
// variable winning.
func environ(base, over []string) []string {
	return policy.DedupEnv(slices.Concat(base, over))
}

// write runs in p's writer: input, a command or a reply.
func (e *Executor) write(p *proc, m *execproto.Msg) (*execproto.Msg, error) {
	ctx, cancel := context.WithTimeout(e.life, writeTimeout)
	defer cancel()
	switch m.Op {
	case execproto.OpCommand:
		return nil, p.p.WriteCommand(ctx, m.Data)
	case execproto.OpReply:
		ok, err := p.p.WriteReply(ctx, m.Pgrp, m.Data)
		return &execproto.Msg{Bool: ok}, err
	}
	return nil, p.p.WriteInput(ctx, m.Data)
}

// tree signals p's tree when Sig is set, waits up to Int milliseconds for
// it to end, and says whether it lives.
func (e *Executor) tree(p *proc, m *execproto.Msg) (*execproto.Msg, error) {
	var err error
	if m.Sig != 0 {
		err = p.p.SignalTree(syscall.Signal(m.Sig), m.Key, m.Value)
	}
	if m.Int > 0 {
		ctx, cancel := context.WithTimeout(e.life, time.Duration(min(m.Int, 60_000))*time.Millisecond)
		_ = p.p.AwaitTree(ctx, m.Key, m.Value)
		cancel()
	}
	return &execproto.Msg{Bool: p.p.TreeAlive(m.Key, m.Value)}, err
}

// control answers the terminal's and the process's quick requests.
func (e *Executor) control(p *proc, m *execproto.Msg) (*execproto.Msg, error) {
	switch m.Op {
	case execproto.OpCloseIn:
		return nil, p.p.CloseInput()
	case execproto.OpResize:
		return nil, p.p.Resize(m.Cols, m.Rows)
	case execproto.OpSignal:
		return nil, p.p.Signal(syscall.Signal(m.Sig))
	case execproto.OpHangUp:
		p.p.HangUpIgnorers(syscall.Signal(m.Sig))
		return nil, nil
	case execproto.OpState:
		st := state(p.p)
		e.mu.Lock()
		st.Ends = [2]uint64{p.out[0].end(), p.out[1].end()}
		e.mu.Unlock()
		return &execproto.Msg{State: st}, nil
	}
	return nil, fmt.Errorf("%s: unknown request", m.Op)
}

func state(p *pty.Process) *execproto.State {
	st := &execproto.State{InputPath: p.InputPath(), Pending: p.Pending(), Typeahead: p.Typeahead()}
	st.Cols, st.Rows = p.Size()
	fg, err := p.ForegroundPgrp()
	st.Fg = fg
	if err != nil {
		st.FgErr = err.Error()
	}
	echo, canon, err := p.Modes()
	st.Echo, st.Canonical = echo, canon
	if err != nil {
		st.ModesErr = err.Error()
	}
	return st
}

func isProbe(op string) bool {
	switch op {
	case execproto.OpInspect, execproto.OpSwitches, execproto.OpPrograms, execproto.OpListening:
		return true
	}
	return false
}

// probe asks this host's kernel what the server's detector asks.
func (e *Executor) probe(m *execproto.Msg) (*execproto.Msg, error) {
	switch m.Op {
	case execproto.OpSwitches:
		var t prompt.Task
		if err := json.Unmarshal(m.Raw, &t); err != nil {
			return nil, fmt.Errorf("switches: %w", err)
		}
		n, ok := e.prober.Switches(t)
		return &execproto.Msg{Uint: n, Bool: ok}, nil
	case execproto.OpListening:
		return &execproto.Msg{Ints: e.prober.Listening(m.Int)}, nil
	}
	var in prompt.Input
	if err := json.Unmarshal(m.Raw, &in); err != nil {
		return nil, fmt.Errorf("%s: %w", m.Op, err)
	}
	if m.Op == execproto.OpPrograms {
		return &execproto.Msg{Strings: e.prober.Programs(in)}, nil
	}
	raw, err := json.Marshal(e.prober.Inspect(in))
	return &execproto.Msg{Raw: raw}, err
}
