package httpserve

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultSessionGrace is how long an MCP session whose client has no
// connection open keeps its slot (issue 38: sessions of clients that went
// away without ending them held their slot for 30 minutes, and after 64
// of them every new client was refused). A client that is there keeps a
// connection: its event stream, or a kept-alive one (closed after Idle).
const DefaultSessionGrace = 30 * time.Second

// sessionConns follows which connections carried each MCP session's
// requests, and since when a session has none.
type sessionConns struct {
	mu    sync.Mutex
	open  map[string]int       // by session id: open connections that carried it
	since map[string]time.Time // by session id: when its last one closed
}

func newSessionConns() *sessionConns {
	return &sessionConns{open: map[string]int{}, since: map[string]time.Time{}}
}

// carried records that c carried a request of session sid.
func (sc *sessionConns) carried(g *guard, c *guardedConn, sid string) {
	g.mu.Lock()
	if c.closed || c.sids[sid] {
		g.mu.Unlock()
		return
	}
	if c.sids == nil {
		c.sids = map[string]bool{}
	}
	c.sids[sid] = true
	g.mu.Unlock()
	sc.mu.Lock()
	sc.open[sid]++
	delete(sc.since, sid)
	sc.mu.Unlock()
}

// closed records that a connection that carried sids closed at now.
func (sc *sessionConns) closed(sids map[string]bool, now time.Time) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	for sid := range sids {
		if sc.open[sid]--; sc.open[sid] <= 0 {
			delete(sc.open, sid)
			sc.since[sid] = now
		}
	}
}

// gone returns the sessions without a connection since before cutoff,
// and forgets them.
func (sc *sessionConns) gone(cutoff time.Time) map[string]bool {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	out := map[string]bool{}
	for sid, t := range sc.since {
		if t.Before(cutoff) {
			out[sid] = true
			delete(sc.since, sid)
		}
	}
	return out
}

// track records, for each request of an MCP session that showed the
// token, the connection it came on: a new session's id is in its answer's
// header.
func (sc *sessionConns) track(g *guard, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gc, _ := r.Context().Value(connKey{}).(*guardedConn)
		if gc != nil && !g.authenticated(gc) {
			gc = nil
		}
		sid := r.Header.Get("Mcp-Session-Id")
		if gc != nil && sid != "" {
			sc.carried(g, gc, sid)
		}
		next.ServeHTTP(w, r)
		if gc != nil && sid == "" {
			if sid = w.Header().Get("Mcp-Session-Id"); sid != "" {
				sc.carried(g, gc, sid)
			}
		}
	})
}

// endGone closes, every grace/3 until ctx is done, the MCP sessions of srv
// that have had no connection for grace.
func (sc *sessionConns) endGone(ctx context.Context, srv *mcp.Server, grace time.Duration) {
	t := time.NewTicker(max(grace/3, time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			gone := sc.gone(now.Add(-grace))
			if len(gone) == 0 {
				continue
			}
			for ss := range srv.Sessions() {
				if gone[ss.ID()] {
					_ = ss.Close()
				}
			}
		}
	}
}
