package executor

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/yieldshell/yieldshell/internal/execproto"
	"github.com/yieldshell/yieldshell/pty"
)

// proc is one command the executor started.
type proc struct {
	id         uint64
	p          *pty.Process
	key, value string // its tree's tag
	inputs     chan func()
	quit       chan struct{} // closed when the server closes it

	// Guarded by the Executor's mutex.
	out       [2]stream
	status    *execproto.Status // once reaped
	exitSent  bool
	announced bool // its start was answered: its output may be sent
}

// stream is one output stream's buffer: buf holds the bytes from
// sequence number base on; sent is where the connection stands.
type stream struct {
	buf     []byte
	base    uint64
	sent    uint64
	eof     bool
	eofSent bool
	open    bool // the stream exists (stderr only in pipe mode)
}

func (s *stream) end() uint64 { return s.base + uint64(len(s.buf)) }

// resumeLocked sends on from seq: what the server had of each stream.
func (p *proc) resumeLocked(seq [2]uint64) {
	for i := range p.out {
		s := &p.out[i]
		s.sent = min(max(seq[i], s.base), s.end())
		s.eofSent = false
	}
	p.exitSent = false
}

// follow starts p's readers, waiter and input writer.
func (e *Executor) follow(p *proc) {
	p.out[0].open = true
	e.wg.Go(func() { e.read(p, 0, p.p.Stdout()) })
	if r := p.p.Stderr(); r != nil {
		p.out[1].open = true
		e.wg.Go(func() { e.read(p, 1, r) })
	}
	e.wg.Go(func() {
		select {
		case <-p.p.Done():
		case <-e.life.Done():
			return
		}
		st := p.p.Status()
		e.mu.Lock()
		p.status = &execproto.Status{Code: st.Code, Signal: int(st.Signal)}
		e.signalLocked()
		e.mu.Unlock()
	})
	e.wg.Go(func() {
		for {
			select {
			case fn := <-p.inputs:
				fn()
			case <-p.quit:
				return
			case <-e.life.Done():
				return
			}
		}
	})
}

// read moves one stream's output into its buffer, waiting while unsent
// bytes fill it (no connection takes them).
func (e *Executor) read(p *proc, i int, r io.Reader) {
	buf := make([]byte, 32<<10)
	for {
		if !e.roomFor(p, i) {
			return
		}
		n, err := r.Read(buf)
		e.mu.Lock()
		s := &p.out[i]
		s.buf = append(s.buf, buf[:n]...)
		if drop := int(min(s.sent-s.base, uint64(len(s.buf)))) - retain; drop > 0 {
			s.buf = append(s.buf[:0:0], s.buf[drop:]...)
			s.base += uint64(drop)
		}
		if err != nil {
			s.eof = true
		}
		e.signalLocked()
		e.mu.Unlock()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				e.log.Debug("reading output", "error", err)
			}
			return
		}
	}
}

// roomFor waits until stream i of p has room for more unsent output; it
// reports false when the executor ends first.
func (e *Executor) roomFor(p *proc, i int) bool {
	for {
		e.mu.Lock()
		s := &p.out[i]
		full, wake := s.end()-s.sent >= unsent, e.wake
		e.mu.Unlock()
		if !full {
			return true
		}
		select {
		case <-wake:
		case <-e.life.Done():
			return false
		}
	}
}

// pump sends every process's new output, ends of streams and exits on c
// until c fails or stop is closed.
func (e *Executor) pump(c *execproto.Conn, stop <-chan struct{}) {
	for {
		e.mu.Lock()
		if e.conn != c {
			e.mu.Unlock()
			return
		}
		msgs, wake := e.pendingLocked(), e.wake
		e.mu.Unlock()
		for _, m := range msgs {
			if err := c.Send(m); err != nil {
				return
			}
		}
		if len(msgs) > 0 {
			continue
		}
		select {
		case <-wake:
		case <-stop:
			return
		}
	}
}

// pendingLocked takes what is to be sent next, a bounded amount of it,
// and marks it sent.
func (e *Executor) pendingLocked() []*execproto.Msg {
	var msgs []*execproto.Msg
	budget := 4 * execproto.MaxChunk
	for _, p := range e.procs {
		if !p.announced {
			continue
		}
		for i := range p.out {
			s := &p.out[i]
			for s.sent < s.end() && budget > 0 {
				from := s.sent - s.base
				n := min(uint64(len(s.buf))-from, execproto.MaxChunk)
				msgs = append(msgs, &execproto.Msg{Op: execproto.EvOutput, Proc: p.id, Stream: i, Seq: s.sent,
					Data: append([]byte(nil), s.buf[from:from+n]...)})
				s.sent += n
				budget -= int(n)
			}
			if s.open && s.eof && !s.eofSent && s.sent == s.end() {
				s.eofSent = true
				msgs = append(msgs, &execproto.Msg{Op: execproto.EvEOF, Proc: p.id, Stream: i, Seq: s.sent})
			}
		}
		if p.status != nil && !p.exitSent {
			p.exitSent = true
			msgs = append(msgs, &execproto.Msg{Op: execproto.EvExit, Proc: p.id, Status: p.status})
		}
	}
	if len(msgs) > 0 {
		e.signalLocked() // a reader may wait for room
	}
	return msgs
}

// closeAfterEnd closes p once it has ended (bounded: its tree was
// killed).
func (p *proc) closeAfterEnd(ctx context.Context) {
	t := time.NewTimer(5 * time.Second)
	defer t.Stop()
	select {
	case <-p.p.Done():
	case <-t.C:
	case <-ctx.Done():
	}
	_ = p.p.Close()
}
