package httpserve

import (
	"cmp"
	"container/list"
	"context"
	"crypto/subtle"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// The rule for connections (issue 30 item 4: clients without the token
// must not lock out a client with it):
//
//   - Every connection is accepted at once; a connection is anonymous
//     until a request on it shows the token.
//   - Anonymous connections get one answer (Connection: close on every
//     response to a request without the token, /healthz included) and
//     must send their headers within ReadHeader.
//   - Past MaxAnonymous anonymous connections, each new one sheds the
//     oldest that has sent nothing and is older than anonGrace. One that
//     has sent bytes is left to ReadHeader and its one answer; a client
//     with the token sends its request as it connects (and its bytes are
//     usually there, peekable, when it is accepted: guard_*.go), so it is
//     not shed however fast others connect or however long the server
//     takes to read it. Past the hard cap (anonCap), the oldest silent one
//     goes however young, else the oldest that spoke, else the oldest: a
//     flood of silent connections never sheds one that sent its request
//     (issue 38: the client's request, accepted while a flood waited in
//     the kernel's queue, was shed for the silent ones behind it).
//   - Only connections that showed the token count against MaxConns; a
//     request with the token that finds MaxConns taken waits for one to
//     close (or for its client to give up).

// anonGrace is how long a new connection is safe from being shed;
// anonHardCap is the most anonymous connections past which even young
// ones are: a quarter of the process's descriptor limit (issue 38: with
// `ulimit -n 1024`, 3000 idle connections used them all, and the client
// with the token could not open a terminal), at most 4096. The rest is
// for the authenticated connections, the commands' terminals, pipes and
// log files, and the server's own.
const (
	anonGrace   = 2 * time.Second
	anonHardCap = 4096
	anonMinCap  = 16
)

// anonCap is the hard cap on anonymous connections under a descriptor
// limit of fds (0: unknown).
func anonCap(fds int) int {
	if fds <= 0 {
		return anonHardCap
	}
	return min(max(fds/4, anonMinCap), anonHardCap)
}

// guard tracks every connection of one listener.
type guard struct {
	maxAnon, hardCap int
	grace            time.Duration
	authed           chan struct{} // a slot per authenticated connection
	sessions         *sessionConns // which connections carry which MCP sessions

	mu   sync.Mutex
	anon list.List // of *guardedConn, oldest first
}

// newGuard returns the guard of a listener whose process may hold fds
// descriptors (0: unknown).
func newGuard(maxConns, maxAnon, fds int) *guard {
	hardCap := anonCap(fds)
	return &guard{maxAnon: min(maxAnon, hardCap), hardCap: hardCap, grace: anonGrace,
		authed: make(chan struct{}, maxConns), sessions: newSessionConns()}
}

// guardedConn is one accepted connection.
type guardedConn struct {
	net.Conn
	g        *guard
	accepted time.Time

	// Under g.mu:
	elem   *list.Element // in g.anon while anonymous and open
	spoke  bool          // bytes arrived from the client
	active bool          // a request is being answered
	slot   bool          // holds a slot of g.authed
	closed bool
	sids   map[string]bool // MCP sessions whose requests it carried (gone.go)

	closeOnce sync.Once
}

// admit registers a new connection, accepted at c.accepted, as
// anonymous, and returns the one it sheds, if any.
func (g *guard) admit(c *guardedConn) (shed *guardedConn) {
	g.mu.Lock()
	defer g.mu.Unlock()
	c.elem = g.anon.PushBack(c)
	if g.anon.Len() <= g.maxAnon {
		return nil
	}
	// The oldest silent one past the grace; past the hard cap, else the
	// oldest silent one, else the oldest idle one, else the oldest.
	old := c.accepted.Add(-g.grace)
	var silentOld, idle, silent *list.Element
	for e := g.anon.Front(); e != nil && silentOld == nil; e = e.Next() {
		switch c := e.Value.(*guardedConn); {
		case c.active:
		case c.spoke:
			idle = cmp.Or(idle, e)
		case !c.accepted.After(old):
			silentOld = e
		default:
			silent = cmp.Or(silent, e)
		}
	}
	victim := silentOld
	if g.anon.Len() > g.hardCap {
		victim = cmp.Or(silentOld, silent, idle, g.anon.Front())
	}
	if victim == nil {
		return nil
	}
	shed = victim.Value.(*guardedConn)
	g.anon.Remove(victim)
	shed.elem = nil
	return shed
}

// setActive records whether a request is in progress on c.
func (g *guard) setActive(c *guardedConn, active bool) {
	g.mu.Lock()
	c.active = active
	g.mu.Unlock()
}

// authenticate takes c out of the anonymous connections and, unless it
// holds one already, waits for an authenticated slot.
func (g *guard) authenticate(ctx context.Context, c *guardedConn) error {
	g.mu.Lock()
	if c.elem != nil {
		g.anon.Remove(c.elem)
		c.elem = nil
	}
	has := c.slot || c.closed
	g.mu.Unlock()
	if has {
		return nil
	}
	select {
	case g.authed <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if c.closed { // closed while it waited: the slot is nobody's
		<-g.authed
		return nil
	}
	c.slot = true
	return nil
}

// authenticated reports whether c showed the token.
func (g *guard) authenticated(c *guardedConn) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return c.slot
}

// forget drops c, closed, and gives back its slot.
func (g *guard) forget(c *guardedConn) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if c.closed {
		return
	}
	c.closed = true
	if c.sids != nil {
		g.sessions.closed(c.sids, time.Now())
	}
	if c.elem != nil {
		g.anon.Remove(c.elem)
		c.elem = nil
	}
	if c.slot {
		c.slot = false
		<-g.authed
	}
}

// Read notes that the client spoke.
func (c *guardedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.g.mu.Lock()
		c.spoke = true
		c.g.mu.Unlock()
	}
	return n, err
}

func (c *guardedConn) Close() error {
	var err error
	c.closeOnce.Do(func() {
		err = c.Conn.Close()
		c.g.forget(c)
	})
	return err
}

// guardListener accepts without waiting for anything but the kernel, and
// sheds anonymous connections past the cap.
type guardListener struct {
	net.Listener
	g *guard
}

func (l *guardListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	gc := &guardedConn{Conn: c, g: l.g, accepted: time.Now(), spoke: hasData(c)}
	if shed := l.g.admit(gc); shed != nil {
		shed.Close()
	}
	return gc, nil
}

// connKey carries a request's *guardedConn in its context.
type connKey struct{}

// connContext is the http.Server's ConnContext.
func connContext(ctx context.Context, c net.Conn) context.Context {
	if gc, ok := c.(*guardedConn); ok {
		return context.WithValue(ctx, connKey{}, gc)
	}
	return ctx
}

// connState is the http.Server's ConnState.
func (g *guard) connState(c net.Conn, st http.ConnState) {
	gc, ok := c.(*guardedConn)
	if !ok {
		return
	}
	switch st {
	case http.StateActive:
		g.setActive(gc, true)
	case http.StateIdle:
		g.setActive(gc, false)
	case http.StateClosed, http.StateHijacked:
		g.forget(gc)
	}
}

// guardRequests authenticates a connection whose request shows token,
// and closes after its answer one whose request does not.
func (g *guard) guardRequests(token string, next http.Handler) http.Handler {
	want := []byte(token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gc, _ := r.Context().Value(connKey{}).(*guardedConn)
		if gc != nil && !g.authenticated(gc) {
			scheme, got, _ := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
			if !strings.EqualFold(scheme, "bearer") || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), want) != 1 {
				w.Header().Set("Connection", "close")
			} else if err := g.authenticate(r.Context(), gc); err != nil {
				return // the client gave up waiting for a slot
			}
		}
		next.ServeHTTP(w, r)
	})
}
