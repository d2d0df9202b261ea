package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/yieldshell/yieldshell/internal/execproto"
	"github.com/yieldshell/yieldshell/pty"
)

// maxBuffered is how much of a stream's output waits for the session's
// reader before the connection's reader waits for it.
const maxBuffered = 4 << 20

// process is a command the executor started, as a session.EngineProcess.
type process struct {
	c         *Client
	id        uint64
	pid       int
	tty       bool
	inputPath string
	out       [2]*stream // stderr is nil under a terminal

	mu         sync.Mutex
	cols, rows uint16
	status     pty.ExitStatus
	done       chan struct{}
	ended      bool
}

func newProcess(c *Client, r *execproto.Msg, s *execproto.Start) *process {
	p := &process{c: c, id: r.Proc, pid: r.Int, tty: r.Bool, inputPath: r.Path,
		cols: s.Cols, rows: s.Rows, done: make(chan struct{})}
	p.out[0] = newStream()
	if !p.tty {
		p.out[1] = newStream()
	}
	return p
}

// event is an output, end-of-stream or exit event of the executor.
func (p *process) event(m *execproto.Msg) {
	if m.Stream < 0 || m.Stream > 1 || p.out[m.Stream] == nil {
		return
	}
	switch m.Op {
	case execproto.EvOutput:
		p.out[m.Stream].add(m.Seq, m.Data)
	case execproto.EvEOF:
		p.out[m.Stream].end()
	case execproto.EvExit:
		if m.Status != nil {
			p.exit(pty.ExitStatus{Code: m.Status.Code, Signal: syscall.Signal(m.Status.Signal)})
		}
	}
}

func (p *process) exit(st pty.ExitStatus) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.ended {
		p.ended, p.status = true, st
		close(p.done)
	}
}

// lost ends a process the executor no longer has (or that could not be
// reached within the grace period): it was killed there.
func (p *process) lost() {
	p.exit(pty.ExitStatus{Code: -int(syscall.SIGKILL), Signal: syscall.SIGKILL})
	for _, s := range p.out {
		if s != nil {
			s.close()
		}
	}
}

func (p *process) seqs() [2]uint64 {
	var seq [2]uint64
	for i, s := range p.out {
		if s != nil {
			seq[i] = s.received()
		}
	}
	return seq
}

func (p *process) Pid() int  { return p.pid }
func (p *process) TTY() bool { return p.tty }

func (p *process) Stdout() io.Reader { return p.out[0] }
func (p *process) Stderr() io.Reader {
	if p.out[1] == nil {
		return nil
	}
	return p.out[1]
}

// req sends a request about this process.
func (p *process) req(ctx context.Context, m *execproto.Msg) (*execproto.Msg, error) {
	m.Proc = p.id
	r, err := p.c.do(ctx, m, nil)
	return r, mapErr(err)
}

// quick is req for the calls that take no context.
func (p *process) quick(m *execproto.Msg) (*execproto.Msg, error) {
	return p.req(context.Background(), m)
}

// mapErr gives the remote errors the session tells apart their local
// identity.
func mapErr(err error) error {
	switch {
	case err == nil:
		return nil
	case strings.Contains(err.Error(), pty.ErrInputClosed.Error()), errors.Is(err, errDisconnected):
		return fmt.Errorf("%w (%w)", err, pty.ErrInputClosed)
	case strings.Contains(err.Error(), pty.ErrNotTTY.Error()):
		return fmt.Errorf("%w (%w)", err, pty.ErrNotTTY)
	}
	return err
}

func (p *process) WriteInput(ctx context.Context, b []byte) error {
	_, err := p.req(ctx, &execproto.Msg{Op: execproto.OpInput, Data: b})
	return err
}

func (p *process) WriteCommand(ctx context.Context, b []byte) error {
	_, err := p.req(ctx, &execproto.Msg{Op: execproto.OpCommand, Data: b})
	return err
}

func (p *process) WriteReply(ctx context.Context, pgrp int, b []byte) (bool, error) {
	r, err := p.req(ctx, &execproto.Msg{Op: execproto.OpReply, Pgrp: pgrp, Data: b})
	return r != nil && r.Bool, err
}

func (p *process) CloseInput() error {
	_, err := p.quick(&execproto.Msg{Op: execproto.OpCloseIn})
	return err
}

func (p *process) Size() (cols, rows uint16) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cols, p.rows
}

func (p *process) Resize(cols, rows uint16) error {
	if _, err := p.quick(&execproto.Msg{Op: execproto.OpResize, Cols: cols, Rows: rows}); err != nil {
		return err
	}
	p.mu.Lock()
	p.cols, p.rows = cols, rows
	p.mu.Unlock()
	return nil
}

// state asks for the terminal's state.
func (p *process) state() (*execproto.State, error) {
	r, err := p.quick(&execproto.Msg{Op: execproto.OpState})
	if err != nil {
		return nil, err
	}
	if r.State == nil {
		return nil, errors.New("state: no answer")
	}
	return r.State, nil
}

func (p *process) ForegroundPgrp() (int, error) {
	st, err := p.state()
	if err != nil {
		return 0, err
	}
	if st.FgErr != "" {
		return 0, mapErr(errors.New(st.FgErr))
	}
	return st.Fg, nil
}

func (p *process) Modes() (echo, canonical bool, err error) {
	st, err := p.state()
	if err != nil {
		return false, false, err
	}
	if st.ModesErr != "" {
		return false, false, mapErr(errors.New(st.ModesErr))
	}
	return st.Echo, st.Canonical, nil
}

func (p *process) InputPath() string { return p.inputPath }

// Pending: output waits in the remote terminal, or is on its way here.
func (p *process) Pending() bool {
	st, err := p.state()
	if err != nil {
		return false
	}
	for i, s := range p.out {
		if s != nil && st.Ends[i] > s.received() {
			return true
		}
	}
	return st.Pending
}

func (p *process) Typeahead() bool {
	st, err := p.state()
	return err == nil && st.Typeahead
}

func (p *process) Signal(sig syscall.Signal) error {
	_, err := p.quick(&execproto.Msg{Op: execproto.OpSignal, Sig: int(sig)})
	return err
}

func (p *process) SignalTree(sig syscall.Signal, key, value string) error {
	_, err := p.quick(&execproto.Msg{Op: execproto.OpTree, Sig: int(sig), Key: key, Value: value})
	return err
}

func (p *process) HangUpIgnorers(sig syscall.Signal) {
	_, _ = p.quick(&execproto.Msg{Op: execproto.OpHangUp, Sig: int(sig)})
}

// TreeAlive: when the executor cannot be asked, the tree counts as gone
// (the executor ends it past its grace period).
func (p *process) TreeAlive(key, value string) bool {
	r, err := p.quick(&execproto.Msg{Op: execproto.OpTree, Key: key, Value: value})
	return err == nil && r.Bool
}

func (p *process) AwaitTree(ctx context.Context, key, value string) error {
	const step = time.Second
	for {
		r, err := p.req(ctx, &execproto.Msg{Op: execproto.OpTree, Key: key, Value: value, Int: int(step / time.Millisecond)})
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return err
		}
		if !r.Bool {
			return nil
		}
	}
}

func (p *process) Done() <-chan struct{} { return p.done }

func (p *process) Status() pty.ExitStatus {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.status
}

// Close releases the process at the executor; the readers get EOF.
func (p *process) Close() error {
	_, err := p.quick(&execproto.Msg{Op: execproto.OpClose})
	p.c.mu.Lock()
	delete(p.c.procs, p.id)
	p.c.mu.Unlock()
	for _, s := range p.out {
		if s != nil {
			s.close()
		}
	}
	return err
}
