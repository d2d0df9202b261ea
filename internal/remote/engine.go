package remote

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/yieldshell/yieldshell/internal/execproto"
	"github.com/yieldshell/yieldshell/internal/session"
	"github.com/yieldshell/yieldshell/prompt"
	"github.com/yieldshell/yieldshell/pty"
)

// Start starts a command through the executor: the session's Engine. The
// program is looked up on the remote host when o.Path is not there; the
// environment is laid over the executor's own.
func (c *Client) Start(ctx context.Context, o pty.Options) (session.EngineProcess, error) {
	s := &execproto.Start{Path: o.Path, Args: o.Args, Dir: o.Dir, Env: o.Env, TTY: o.TTY, Cols: o.Cols, Rows: o.Rows}
	var p *process
	// Registered by the connection's reader as the answer arrives, so
	// that the output that follows it finds the process.
	_, err := c.do(ctx, &execproto.Msg{Op: execproto.OpStart, Start: s}, func(r *execproto.Msg) {
		p = newProcess(c, r, s)
		c.mu.Lock()
		c.procs[p.id] = p
		c.mu.Unlock()
	})
	if err != nil {
		if p != nil { // answered, then the wait ended
			_ = p.Close()
		}
		return nil, err
	}
	if p == nil {
		return nil, errors.New("start: no process in the answer")
	}
	return p, nil
}

// Engine is the Client as the session's Engine. Closing it does nothing:
// [Hosts] owns its Clients.
func (c *Client) Engine() session.Engine { return engine{c} }

type engine struct{ c *Client }

func (e engine) Start(ctx context.Context, o pty.Options) (session.EngineProcess, error) {
	return e.c.Start(ctx, o)
}
func (e engine) Close() error { return nil }

// EndTagged ends nothing from here: a remote process is stopped, tree and
// all, by its executor, which keeps what escaped its ended commands as
// long as it keeps its processes and ends it with them (at the end of its
// grace period once the connection is gone).
func (e engine) EndTagged(context.Context, string, time.Duration) {}

// probeTimeout bounds a question to the remote kernel: a detector that
// gets no answer takes "unknown".
const probeTimeout = 2 * time.Second

// Prober is the Client as the session's Prober: the remote kernel's
// answers, or nothing known when the executor cannot be asked.
func (c *Client) Prober() session.Prober { return prober{c} }

type prober struct{ c *Client }

func (pr prober) ask(m *execproto.Msg, v any) *execproto.Msg {
	if v != nil {
		raw, err := json.Marshal(v)
		if err != nil {
			return nil
		}
		m.Raw = raw
	}
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	r, err := pr.c.do(ctx, m, nil)
	if err != nil {
		return nil
	}
	return r
}

func (pr prober) Inspect(in prompt.Input) prompt.Probe {
	var p prompt.Probe
	if r := pr.ask(&execproto.Msg{Op: execproto.OpInspect}, in); r != nil {
		if json.Unmarshal(r.Raw, &p) != nil {
			return prompt.Probe{}
		}
	}
	return p
}

func (pr prober) Switches(t prompt.Task) (uint64, bool) {
	r := pr.ask(&execproto.Msg{Op: execproto.OpSwitches}, t)
	if r == nil {
		return 0, false
	}
	return r.Uint, r.Bool
}

func (pr prober) Programs(in prompt.Input) []string {
	if r := pr.ask(&execproto.Msg{Op: execproto.OpPrograms}, in); r != nil {
		return r.Strings
	}
	return nil
}

func (pr prober) Listening(sid int) []int {
	if r := pr.ask(&execproto.Msg{Op: execproto.OpListening, Int: sid}, nil); r != nil {
		return r.Ints
	}
	return nil
}
