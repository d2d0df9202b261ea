package executor

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"net"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/yieldshell/yieldshell/internal/execproto"
	"github.com/yieldshell/yieldshell/prompt"
	"github.com/yieldshell/yieldshell/pty"
)

// tagKey is the environment variable that marks a command's tree (the
// server's session package sets it in every command's environment).
const tagKey = "YIELDSHELL_TAG"

const (
	retain = 1 << 20 // bytes kept after they were sent, for a resume
	unsent = 4 << 20 // bytes read and not sent before a reader waits
)

// Executor runs commands for one server at a time.
type Executor struct {
	reaper *pty.Reaper
	prober *prompt.Prober
	grace  time.Duration
	log    *slog.Logger

	life context.Context // ends with Run
	stop context.CancelFunc
	wg   sync.WaitGroup

	mu     sync.Mutex
	procs  map[uint64]*proc
	tags   map[string]bool // every tree's tag value this executor started
	next   uint64
	conn   *execproto.Conn // the current connection; nil between two
	wake   chan struct{}   // closed and replaced on new output, an end, a new connection
	gone   time.Time       // when the last connection ended
	closed bool
}

// New returns an Executor; it owns reaper from then on.
func New(reaper *pty.Reaper, grace time.Duration, log *slog.Logger) *Executor {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	life, stop := context.WithCancel(context.Background())
	return &Executor{reaper: reaper, prober: prompt.NewProber(), grace: grace, log: log,
		life: life, stop: stop, procs: map[uint64]*proc{}, tags: map[string]bool{}, wake: make(chan struct{}), gone: time.Now()}
}

// signalLocked wakes the pump and the grace timer. Called with e.mu held.
func (e *Executor) signalLocked() {
	close(e.wake)
	e.wake = make(chan struct{})
}

// Run serves first, then every connection ln accepts (ln may be nil),
// until no connection has been there for the grace period or ctx ends;
// then it ends every tree it started and returns.
func (e *Executor) Run(ctx context.Context, first *execproto.Conn, ln net.Listener) {
	if first != nil {
		e.Serve(first)
	}
	if ln != nil {
		e.wg.Go(func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				e.Serve(execproto.NewConn(c, c, c))
			}
		})
	}
	e.awaitIdle(ctx)
	if ln != nil {
		_ = ln.Close()
	}
	e.shutdown()
}

// awaitIdle returns once no connection has been there for the grace
// period (at once when no process is left to keep), or ctx ends.
func (e *Executor) awaitIdle(ctx context.Context) {
	for {
		e.mu.Lock()
		wake, connected, left := e.wake, e.conn != nil, e.grace-time.Since(e.gone)
		idle := len(e.procs) == 0
		e.mu.Unlock()
		// What escaped a command that ended (a daemon it started) is kept
		// as the commands are: a dropped connection must not end it.
		idle = idle && !connected && len(e.escaped()) == 0
		if !connected && (left <= 0 || idle) {
			return
		}
		var timer <-chan time.Time
		t := time.NewTimer(left)
		if !connected {
			timer = t.C
		}
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-wake:
		case <-timer:
		}
		t.Stop()
	}
}

// shutdown ends every tree, closes every process and the reaper, and
// joins every goroutine.
func (e *Executor) shutdown() {
	e.mu.Lock()
	e.closed = true
	procs := make([]*proc, 0, len(e.procs))
	for _, p := range e.procs {
		procs = append(procs, p)
	}
	if e.conn != nil {
		_ = e.conn.Close()
	}
	e.signalLocked()
	e.mu.Unlock()
	for _, p := range procs {
		p.kill()
	}
	e.endEscaped()
	e.stop()
	for _, p := range procs {
		select {
		case <-p.p.Done():
		case <-time.After(2 * time.Second):
		}
		_ = p.p.Close()
	}
	e.wg.Wait()
	_ = e.reaper.Close()
}

// Serve makes c the current connection (closing the one before) and
// serves it.
func (e *Executor) Serve(c *execproto.Conn) {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		_ = c.Close()
		return
	}
	if e.conn != nil {
		_ = e.conn.Close()
	}
	e.conn = c
	e.signalLocked()
	e.mu.Unlock()
	e.wg.Go(func() { e.serve(c) })
}

// serve reads c's requests until it ends. The pump starts after the
// hello, which says where to send from.
func (e *Executor) serve(c *execproto.Conn) {
	pumping := make(chan struct{})
	var pump sync.WaitGroup
	defer func() {
		_ = c.Close()
		e.mu.Lock()
		if e.conn == c {
			e.conn, e.gone = nil, time.Now()
		}
		e.signalLocked()
		e.mu.Unlock()
		close(pumping)
		pump.Wait()
	}()
	for {
		m, err := c.Recv()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) && !errors.Is(err, os.ErrClosed) {
				e.log.Debug("connection ended", "error", err)
			}
			return
		}
		if m.Op == execproto.OpHello {
			e.hello(c, m)
			pump.Go(func() { e.pump(c, pumping) })
			continue
		}
		e.handle(c, m)
	}
}

// hello answers a connection's first message: from where each stream
// goes on, and which processes are gone. A process the server does not
// name is one it cannot know (its start's answer was lost): it is ended.
func (e *Executor) hello(c *execproto.Conn, m *execproto.Msg) {
	h := &execproto.Hello{Version: execproto.Version, OS: goos, Arch: goarch}
	var orphans []*proc
	e.mu.Lock()
	named := map[uint64]bool{}
	if m.Hello != nil {
		for _, r := range m.Hello.Resume {
			named[r.Proc] = true
			p := e.procs[r.Proc]
			if p == nil {
				h.Lost = append(h.Lost, r.Proc)
				continue
			}
			p.resumeLocked(r.Seq)
			p.announced = true
		}
	}
	for id, p := range e.procs {
		if !named[id] {
			orphans = append(orphans, p)
			delete(e.procs, id)
			close(p.quit)
		}
	}
	e.mu.Unlock()
	for _, p := range orphans {
		p.kill()
		e.wg.Go(func() { p.closeAfterEnd(e.life) })
	}
	_ = c.Send(&execproto.Msg{ID: m.ID, Reply: true, Hello: h})
}

// tagOf finds the tree's tag in a command's environment.
func tagOf(env []string) (key, value string) {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, tagKey+"="); ok {
			return tagKey, v
		}
	}
	return "", ""
}

// kill ends p's tree at once: the executor is going away, or the server
// that started it does not know it.
func (p *proc) kill() {
	if p.key != "" {
		_ = p.p.SignalTree(syscall.SIGKILL, p.key, p.value)
	}
	_ = p.p.Signal(syscall.SIGKILL)
}

// escaped returns the processes that carry the tag of a tree this
// executor started: descendants that left their command's session, the
// commands' own processes too while they live.
func (e *Executor) escaped() []int {
	e.mu.Lock()
	tags := maps.Clone(e.tags)
	e.mu.Unlock()
	if len(tags) == 0 {
		return nil
	}
	var pids []int
	for pid, v := range pty.Tagged(e.life, tagKey) {
		if tags[v] {
			pids = append(pids, pid)
		}
	}
	return pids
}

// escapeGrace is how long an escaped process has between SIGTERM and
// SIGKILL when the executor ends.
const escapeGrace = 2 * time.Second

// endEscaped ends what escaped the trees, as a server ends the escaped
// descendants of its commands when it shuts down: SIGTERM, then SIGKILL
// to what is left after escapeGrace.
func (e *Executor) endEscaped() {
	pids := e.escaped()
	if len(pids) == 0 {
		return
	}
	for _, pid := range pids {
		_ = pty.KillPid(pid, syscall.SIGTERM)
	}
	deadline := time.Now().Add(escapeGrace)
	for len(pids) > 0 && time.Now().Before(deadline) {
		t := time.NewTimer(50 * time.Millisecond)
		<-t.C
		pids = e.escaped()
	}
	for _, pid := range pids {
		_ = pty.KillPid(pid, syscall.SIGKILL)
	}
}
