package resources

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/answer"
	"github.com/yieldshell/yieldshell/internal/mcptool"
	"github.com/yieldshell/yieldshell/internal/policy"
	"github.com/yieldshell/yieldshell/internal/session"
)

// DefaultInterval is the least time between two updated notifications
// for one process's output. A process that ends or starts waiting for
// input is reported at once.
const DefaultInterval = 250 * time.Millisecond

// maxSubscriptions bounds the URIs subscribed to at once, over every
// client: each is a string the client chose (a since_seq makes a new
// one), kept until it unsubscribes. maxSessionSubscriptions bounds one
// session's, so that one client cannot take every other's room (issue 38).
const (
	maxSubscriptions        = 1024
	maxSessionSubscriptions = 64
)

// maxNotified bounds the updated notifications one process's change sends,
// however many URIs name it: past it, each change tells the next ones in
// turn (issue 38: one yes with 1022 subscriptions sent about 2100
// notifications a second).
const maxNotified = 16

// Options configure a Hub.
type Options struct {
	// Interval is the least time between two updated notifications for
	// one process; zero means DefaultInterval.
	Interval time.Duration
}

// Hub serves the processes' output as resources of one MCP server. Its
// Subscribe, Unsubscribe and Complete methods are the server's handlers
// (mcp.ServerOptions); Start attaches it to the server and the Manager.
type Hub struct {
	interval time.Duration

	// Set by Start.
	srv    *mcp.Server
	m      *session.Manager
	reader *answer.Reader
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup // run and every follower
	kick   chan struct{}  // subscriptions changed: follow again

	mu        sync.Mutex
	subs      map[string]*subscription       // by URI
	followers map[*session.Process]*follower // processes a subscription names
	listed    map[*session.Process]bool      // in resources/list
	closed    bool
}

// subscription is one URI some clients subscribed to.
type subscription struct {
	t        target
	sessions map[*mcp.ServerSession]bool
}

// New returns a Hub that is not attached yet.
func New(o Options) *Hub {
	if o.Interval <= 0 {
		o.Interval = DefaultInterval
	}
	return &Hub{
		interval:  o.Interval,
		kick:      make(chan struct{}, 1),
		subs:      make(map[string]*subscription),
		followers: make(map[*session.Process]*follower),
		listed:    make(map[*session.Process]bool),
	}
}

// Start adds the resource templates to srv and starts following m's
// processes; cfg is the tools' configuration (read's caps). Close stops.
func (h *Hub) Start(srv *mcp.Server, m *session.Manager, cfg *policy.Config) {
	h.srv, h.m, h.reader = srv, m, answer.New(m, cfg)
	h.ctx, h.cancel = context.WithCancel(context.Background())
	srv.AddResourceTemplate(logTemplate(), h.readLog)
	srv.AddResourceTemplate(screenTemplate(), h.readScreen)
	h.wg.Go(h.run)
}

// Close stops following and joins every goroutine of the Hub.
func (h *Hub) Close() {
	h.mu.Lock()
	h.closed = true
	h.mu.Unlock()
	if h.cancel != nil {
		h.cancel()
	}
	h.wg.Wait()
}

// resolve parses uri, which must be of view, and finds its process.
func (h *Hub) resolve(uri, view string) (target, *session.Process, error) {
	t, err := parse(uri)
	if err != nil {
		return t, nil, err
	}
	if t.view != view {
		return t, nil, invalid(uri, "not a "+view+" URI")
	}
	if h.m == nil {
		return t, nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the server is starting"}
	}
	p, err := h.m.Get(t.ref)
	if err != nil {
		return t, nil, notFound(uri)
	}
	return t, p, nil
}

// Subscribe is the server's resources/subscribe handler: the URI must
// name a process this server knows.
func (h *Hub) Subscribe(_ context.Context, req *mcp.SubscribeRequest) error {
	uri := req.Params.URI
	t, err := parse(uri)
	if err != nil {
		return err
	}
	if _, _, err := h.resolve(uri, t.view); err != nil {
		return err
	}
	live := h.sessions()
	h.mu.Lock()
	s := h.subs[uri]
	if s == nil && len(h.subs) >= maxSubscriptions {
		h.pruneLocked(live)
	}
	if s == nil || !s.sessions[req.Session] {
		if h.sessionSubsLocked(req.Session) >= maxSessionSubscriptions {
			h.mu.Unlock()
			return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
				Message: fmt.Sprintf("too many subscriptions for this session (%d): unsubscribe from some first", maxSessionSubscriptions)}
		}
	}
	if s == nil {
		if len(h.subs) >= maxSubscriptions {
			h.mu.Unlock()
			return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
				Message: fmt.Sprintf("too many subscriptions (%d): unsubscribe from some first", maxSubscriptions)}
		}
		s = &subscription{t: t, sessions: make(map[*mcp.ServerSession]bool)}
		h.subs[uri] = s
	}
	s.sessions[req.Session] = true
	h.mu.Unlock()
	h.follow()
	return nil
}

// sessionSubsLocked counts the URIs ss subscribed to. Called with h.mu
// held.
func (h *Hub) sessionSubsLocked(ss *mcp.ServerSession) int {
	n := 0
	for _, s := range h.subs {
		if s.sessions[ss] {
			n++
		}
	}
	return n
}

// Unsubscribe is the server's resources/unsubscribe handler.
func (h *Hub) Unsubscribe(_ context.Context, req *mcp.UnsubscribeRequest) error {
	uri := req.Params.URI
	h.mu.Lock()
	if s := h.subs[uri]; s != nil {
		delete(s.sessions, req.Session)
		if len(s.sessions) == 0 {
			delete(h.subs, uri)
		}
	}
	h.mu.Unlock()
	h.follow()
	return nil
}

// follow tells run that the subscriptions changed.
func (h *Hub) follow() {
	select {
	case h.kick <- struct{}{}:
	default:
	}
}

// run follows the Manager: after every start, end or forget, and every
// change of subscriptions, it brings resources/list and the followers up
// to date.
func (h *Hub) run() {
	for {
		changed := h.m.Changes()
		h.list()
		h.reconcile()
		select {
		case <-changed:
		case <-h.kick:
		case <-h.ctx.Done():
			return
		}
	}
}

// list makes resources/list hold the running processes' resources: their
// logs, and the screens of those with a terminal. The SDK tells clients
// the list changed.
func (h *Hub) list() {
	running := make(map[*session.Process]bool)
	for _, p := range h.m.Running() {
		if !p.Ended() {
			running[p] = true
		}
	}
	var add []*session.Process
	var remove []string
	h.mu.Lock()
	for p := range running {
		if !h.listed[p] {
			h.listed[p] = true
			add = append(add, p)
		}
	}
	for p := range h.listed {
		if !running[p] {
			delete(h.listed, p)
			remove = append(remove, mcptool.ProcessURI(p.ID, mcptool.ViewLog), mcptool.ProcessURI(p.ID, mcptool.ViewScreen))
		}
	}
	h.mu.Unlock()
	if len(remove) > 0 {
		h.srv.RemoveResources(remove...)
	}
	for _, p := range add {
		label := p.ID
		if p.Name != "" {
			label = p.Name + " (" + p.ID + ")"
		}
		cmd := p.Info().Command
		h.srv.AddResource(&mcp.Resource{URI: mcptool.ProcessURI(p.ID, mcptool.ViewLog), Name: p.ID + " log",
			Title: "Output of " + label, Description: "$ " + cmd, MIMEType: "text/plain"}, h.readLog)
		if p.TTY {
			h.srv.AddResource(&mcp.Resource{URI: mcptool.ProcessURI(p.ID, mcptool.ViewScreen), Name: p.ID + " screen",
				Title: "Terminal of " + label, Description: "$ " + cmd, MIMEType: "text/plain"}, h.readScreen)
		}
	}
}

// reconcile starts a follower for every process a subscription names now
// (a name names its newest run) and stops those no subscription names
// any more. A subscription whose process is forgotten is dropped from
// following (the client's subscription stays; it hears nothing more).
func (h *Hub) reconcile() {
	live := h.sessions()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	h.pruneLocked(live)
	named := make(map[*session.Process]bool)
	for _, s := range h.subs {
		if p, err := h.m.Get(s.t.ref); err == nil {
			named[p] = true
		}
	}
	for p, f := range h.followers {
		if !named[p] {
			f.stop()
			delete(h.followers, p)
		}
	}
	for p := range named {
		if h.followers[p] == nil {
			h.followers[p] = h.startFollower(p)
		}
	}
}

// sessions returns the server's connected sessions.
func (h *Hub) sessions() map[*mcp.ServerSession]bool {
	live := make(map[*mcp.ServerSession]bool)
	for ss := range h.srv.Sessions() {
		live[ss] = true
	}
	return live
}

// pruneLocked forgets the subscriptions of sessions that are gone without
// unsubscribing (a client that disconnected): they would otherwise count
// against maxSubscriptions for as long as the server runs. Called with
// h.mu held.
func (h *Hub) pruneLocked(live map[*mcp.ServerSession]bool) {
	for uri, s := range h.subs {
		for ss := range s.sessions {
			if !live[ss] {
				delete(s.sessions, ss)
			}
		}
		if len(s.sessions) == 0 {
			delete(h.subs, uri)
		}
	}
}

// uris returns the subscribed URIs that name p now, sorted.
func (h *Hub) uris(p *session.Process) []string {
	h.mu.Lock()
	var out []string
	for uri, s := range h.subs {
		if q, err := h.m.Get(s.t.ref); err == nil && q == p {
			out = append(out, uri)
		}
	}
	h.mu.Unlock()
	slices.Sort(out)
	return out
}

// updated tells the subscribers of p's resources that they changed: at
// most maxNotified URIs, from the turn'th on (the caller's count of
// notifications sent, which it advances), so that every URI is told in
// turn and one process's changes cost a bounded rate whatever the number
// of URIs naming it.
func (h *Hub) updated(p *session.Process, turn *int) {
	uris := h.uris(p)
	n := min(len(uris), maxNotified)
	for i := range n {
		uri := uris[(*turn+i)%len(uris)]
		_ = h.srv.ResourceUpdated(h.ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri})
	}
	*turn += n
}

// Capabilities is what the server declares of its resources: clients may
// subscribe, and are told when the list changes (a process starts or
// ends).
func Capabilities() *mcp.ResourceCapabilities {
	return &mcp.ResourceCapabilities{Subscribe: true, ListChanged: true}
}
