package remote

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/yieldshell/yieldshell/internal/execproto"
)

// Dialer opens a connection to the host's executor of one session: the
// first starts it, a later one reaches the same executor (after a dropped
// connection) or a new one (after it ended).
type Dialer interface {
	Dial(ctx context.Context, session string) (io.ReadWriteCloser, error)
}

// Timing is how long a Client waits.
type Timing struct {
	Call  time.Duration // one request's answer (and a hello's)
	Grace time.Duration // reconnecting, before the processes count as lost
}

// DefaultTiming: the executor's own grace is ten minutes.
var DefaultTiming = Timing{Call: 10 * time.Second, Grace: 10 * time.Minute}

var errDisconnected = errors.New("the connection to the executor dropped")

// Client is one host's connection to its executor.
type Client struct {
	host    string
	dial    Dialer
	session string
	timing  Timing
	log     *slog.Logger

	life context.Context
	stop context.CancelFunc
	wg   sync.WaitGroup
	dmu  sync.Mutex // one dial at a time

	mu     sync.Mutex
	conn   *execproto.Conn // nil while disconnected
	calls  map[uint64]*call
	nextID uint64
	procs  map[uint64]*process
	redial bool // the reconnecting goroutine runs
	closed bool
}

type call struct {
	conn    *execproto.Conn
	ch      chan *execproto.Msg // the answer; nil when the connection dropped
	onReply func(*execproto.Msg)
}

// NewClient returns a Client of host that connects through d when it is
// first asked for something.
func NewClient(host string, d Dialer, t Timing, log *slog.Logger) *Client {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	life, stop := context.WithCancel(context.Background())
	return &Client{host: host, dial: d, session: hex.EncodeToString(b[:]), timing: t, log: log,
		life: life, stop: stop, calls: map[uint64]*call{}, procs: map[uint64]*process{}}
}

// Close drops the connection and stops reconnecting; processes still
// open end as lost.
func (c *Client) Close() error {
	c.mu.Lock()
	c.closed = true
	conn := c.conn
	c.mu.Unlock()
	c.stop()
	if conn != nil {
		_ = conn.Close()
	}
	c.wg.Wait()
	c.loseAll(nil)
	return nil
}

// connect makes sure a connection is up, dialling one if none is.
func (c *Client) connect(ctx context.Context) error {
	c.dmu.Lock()
	defer c.dmu.Unlock()
	c.mu.Lock()
	up, closed := c.conn != nil, c.closed
	c.mu.Unlock()
	if closed {
		return errors.New("connecting: the client is closed")
	}
	if up {
		return nil
	}
	rwc, err := c.dial.Dial(ctx, c.session)
	if err != nil {
		return fmt.Errorf("connecting to %s: %w", c.host, err)
	}
	conn := execproto.NewConn(rwc, rwc, rwc)
	c.mu.Lock()
	if c.closed { // Close waits for the readers it knows of: no new one after it
		c.mu.Unlock()
		_ = conn.Close()
		return errors.New("connecting: the client is closed")
	}
	c.wg.Go(func() { c.read(conn) })
	c.mu.Unlock()
	hctx, cancel := context.WithTimeout(ctx, c.timing.Call)
	h, err := c.hello(hctx, conn)
	cancel()
	if err != nil {
		_ = conn.Close()
		return fmt.Errorf("connecting to %s: %w", c.host, err)
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		_ = conn.Close()
		return errors.New("connecting: the client is closed")
	}
	c.conn = conn
	c.mu.Unlock()
	c.log.Info("connected to the executor", "host", c.host, "os", h.OS, "arch", h.Arch, "lost", len(h.Lost))
	for _, id := range h.Lost {
		c.lose(id)
	}
	return nil
}

// hello opens conn: it says where each process's streams stood.
func (c *Client) hello(ctx context.Context, conn *execproto.Conn) (*execproto.Hello, error) {
	h := &execproto.Hello{Version: execproto.Version}
	c.mu.Lock()
	for id, p := range c.procs {
		h.Resume = append(h.Resume, execproto.Resume{Proc: id, Seq: p.seqs()})
	}
	c.mu.Unlock()
	r, err := c.send(ctx, conn, &execproto.Msg{Op: execproto.OpHello, Hello: h}, nil)
	if err != nil {
		return nil, err
	}
	if r.Hello == nil || r.Hello.Version != execproto.Version {
		return nil, fmt.Errorf("the executor speaks another protocol version (want %d)", execproto.Version)
	}
	return r.Hello, nil
}

// do sends a request on the current connection (connecting first when
// none is up) and waits for its answer within the call timeout. An
// answer's error is returned as an error.
func (c *Client) do(ctx context.Context, m *execproto.Msg, onReply func(*execproto.Msg)) (*execproto.Msg, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timing.Call)
	defer cancel()
	c.mu.Lock()
	conn := c.conn
	c.mu.Unlock()
	if conn == nil {
		if err := c.connect(ctx); err != nil {
			return nil, err
		}
		c.mu.Lock()
		conn = c.conn
		c.mu.Unlock()
		if conn == nil {
			return nil, errDisconnected
		}
	}
	return c.send(ctx, conn, m, onReply)
}

// send sends m on conn and waits for its answer.
func (c *Client) send(ctx context.Context, conn *execproto.Conn, m *execproto.Msg, onReply func(*execproto.Msg)) (*execproto.Msg, error) {
	cl := &call{conn: conn, ch: make(chan *execproto.Msg, 1), onReply: onReply}
	c.mu.Lock()
	c.nextID++
	m.ID = c.nextID
	c.calls[m.ID] = cl
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.calls, m.ID)
		c.mu.Unlock()
	}()
	if err := conn.Send(m); err != nil {
		return nil, fmt.Errorf("%s on %s: %w", m.Op, c.host, errDisconnected)
	}
	select {
	case r := <-cl.ch:
		if r == nil {
			return nil, fmt.Errorf("%s on %s: %w", m.Op, c.host, errDisconnected)
		}
		if r.Err != "" {
			return r, fmt.Errorf("%s on %s: %s", m.Op, c.host, r.Err)
		}
		return r, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("%s on %s: no answer: %w", m.Op, c.host, ctx.Err())
	}
}

// read dispatches conn's messages until it fails: answers to their
// callers, events to their processes. What names nothing known is
// dropped.
func (c *Client) read(conn *execproto.Conn) {
	var err error
	for {
		var m *execproto.Msg
		if m, err = conn.Recv(); err != nil {
			break
		}
		if m.Reply {
			c.mu.Lock()
			cl := c.calls[m.ID]
			delete(c.calls, m.ID)
			c.mu.Unlock()
			if cl != nil {
				if cl.onReply != nil && m.Err == "" {
					cl.onReply(m)
				}
				cl.ch <- m
			}
			continue
		}
		c.mu.Lock()
		p := c.procs[m.Proc]
		c.mu.Unlock()
		if p != nil {
			p.event(m)
		}
	}
	_ = conn.Close()
	c.dropped(conn, err)
}

// dropped forgets conn: its waiting callers fail, and while processes
// are open the Client reconnects.
func (c *Client) dropped(conn *execproto.Conn, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for id, cl := range c.calls {
		if cl.conn == conn {
			delete(c.calls, id)
			cl.ch <- nil
		}
	}
	if c.conn != conn {
		return // a hello that failed
	}
	c.log.Warn("connection to the executor dropped", "host", c.host, "error", err)
	c.conn = nil
	if len(c.procs) > 0 && !c.redial && !c.closed {
		c.redial = true
		c.wg.Go(c.reconnect)
	}
}

// reconnect dials again, backing off, until it connects, the Client
// closes or the grace period passes: then the processes are lost (the
// executor ends them too).
func (c *Client) reconnect() {
	defer func() {
		c.mu.Lock()
		c.redial = false
		c.mu.Unlock()
	}()
	deadline := time.Now().Add(c.timing.Grace)
	wait := 50 * time.Millisecond
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(c.life, max(c.timing.Call, 30*time.Second))
		err := c.connect(ctx)
		cancel()
		if err == nil {
			c.log.Info("reconnected to the executor", "host", c.host)
			return
		}
		c.log.Warn("reconnecting", "host", c.host, "error", err)
		select {
		case <-c.life.Done():
			return
		case <-time.After(wait):
		}
		wait = min(2*wait, 5*time.Second)
	}
	c.loseAll(errors.New("no connection within the grace period"))
}

// loseAll ends every open process as lost.
func (c *Client) loseAll(err error) {
	c.mu.Lock()
	ids := make([]uint64, 0, len(c.procs))
	for id := range c.procs {
		ids = append(ids, id)
	}
	c.mu.Unlock()
	if err != nil && len(ids) > 0 {
		c.log.Warn("remote processes lost", "host", c.host, "count", len(ids), "error", err)
	}
	for _, id := range ids {
		c.lose(id)
	}
}

func (c *Client) lose(id uint64) {
	c.mu.Lock()
	p := c.procs[id]
	delete(c.procs, id)
	c.mu.Unlock()
	if p != nil {
		p.lost()
	}
}
