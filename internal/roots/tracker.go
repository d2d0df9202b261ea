package roots

import (
	"context"
	"errors"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"time"
	"weak"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/policy"
)

const (
	// firstAnswerWait bounds how long a tool call waits for a roots/list
	// answer already asked for; past it the call is refused (when confined
	// to roots) or runs in the server's default directory.
	firstAnswerWait = 2 * time.Second
	// fetchTimeout bounds one roots/list; a client that does not answer
	// is asked again by the next call that needs roots.
	fetchTimeout = 30 * time.Second
	// inputKey names the roots/list input request of the sessionless
	// protocol.
	inputKey = "roots"
	// sessionless is the first protocol version where a server may not
	// send requests of its own (roots are asked through input requests).
	sessionless = "2026-07-28"
)

// NoCapability is the Missing of a client that declared no roots: it
// chose not to say, which is no failure to report.
const NoCapability = "the client declared no roots capability"

// Status says where a session's roots stand, for ps.
const (
	StatusKnown       = "known"        // the client answered roots/list
	StatusPending     = "pending"      // asked; no answer yet
	StatusNotAsked    = "not_asked"    // the sessionless protocol: asked by the first call that needs them
	StatusFailed      = "failed"       // the client answered with an error, or not in time
	StatusNotDeclared = "not_declared" // the client declared no roots capability
	StatusUnavailable = "unavailable"  // this connection has no client roots
)

// Tracker holds each client session's roots.
type Tracker struct {
	log    *slog.Logger
	ctx    context.Context // cancelled by Close: ends every roots/list in flight
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu       sync.Mutex
	closed   bool
	sessions map[weak.Pointer[mcp.ServerSession]]*entry
}

// entry is one session's roots.
type entry struct {
	roots    *policy.Roots // nil while unknown
	status   string
	known    chan struct{} // closed when the answer to the current generation is in
	gen      int           // bumped by list_changed: older answers are dropped
	fetching bool          // a goroutine is asking (one per session at most)
	askedAt  time.Time
}

// New returns a Tracker that logs refused roots and failed answers to log.
func New(log *slog.Logger) *Tracker {
	ctx, cancel := context.WithCancel(context.Background())
	return &Tracker{log: log, ctx: ctx, cancel: cancel, sessions: map[weak.Pointer[mcp.ServerSession]]*entry{}}
}

// Close ends every roots/list in flight and joins the goroutines asking.
func (t *Tracker) Close() {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.closed = true
	t.mu.Unlock()
	t.cancel()
	t.wg.Wait()
}

// Initialized is the server's InitializedHandler: a client that declared
// roots is asked for them now.
func (t *Tracker) Initialized(_ context.Context, req *mcp.InitializedRequest) {
	t.refresh(req.Session)
}

// ListChanged is the server's RootsListChangedHandler: the roots known are
// dropped (calls wait for the new answer, or are refused, rather than use
// roots the client withdrew), and the client is asked again.
func (t *Tracker) ListChanged(_ context.Context, req *mcp.RootsListChangedRequest) {
	t.refresh(req.Session)
}

// refresh forgets ss's roots and, where the protocol lets a server ask,
// asks for them.
func (t *Tracker) refresh(ss *mcp.ServerSession) {
	if t == nil || ss == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	e := t.entryLocked(ss)
	e.gen++
	e.roots, e.status = nil, StatusNotAsked
	select {
	case <-e.known: // answered: calls wait for the next answer
		e.known = make(chan struct{})
	default: // calls already waiting get the next answer
	}
	if canAsk(ss) {
		t.fetchLocked(nil, ss, e)
	}
}

// canAsk reports whether the server may send ss a roots/list of its own:
// a client that declared roots at initialize, on a protocol before the
// sessionless one.
func canAsk(ss *mcp.ServerSession) bool {
	p := ss.InitializeParams()
	return p != nil && p.ProtocolVersion < sessionless && p.Capabilities != nil && p.Capabilities.RootsV2 != nil
}

// entryLocked returns ss's entry, making it (held weakly: it goes when
// the session is collected).
func (t *Tracker) entryLocked(ss *mcp.ServerSession) *entry {
	k := weak.Make(ss)
	e := t.sessions[k]
	if e == nil {
		e = &entry{known: make(chan struct{}), status: StatusNotAsked}
		t.sessions[k] = e
		runtime.AddCleanup(ss, t.forget, k)
	}
	return e
}

func (t *Tracker) forget(k weak.Pointer[mcp.ServerSession]) {
	t.mu.Lock()
	delete(t.sessions, k)
	t.mu.Unlock()
}

// fetchLocked starts the session's one asking goroutine unless it runs:
// it asks until the answer it got is for the latest generation. A failed
// answer is forgotten: callers wait for the new one.
//
// call, when not nil, is the context of the tool call that needs the
// roots: the request is sent in its name (over HTTP, on that call's
// response stream, which the client is reading, where a request of the
// server's own would need the client's GET stream, which many clients
// open late or never). Only its values are used: the request outlives
// neither the Tracker nor fetchTimeout, but may outlive the call.
func (t *Tracker) fetchLocked(call context.Context, ss *mcp.ServerSession, e *entry) {
	e.status = StatusPending
	if e.fetching || t.closed {
		return
	}
	if e.roots != nil { // a failed answer: ask anew
		e.roots = nil
		e.known = make(chan struct{})
	}
	e.fetching = true
	e.askedAt = time.Now()
	gen := e.gen
	t.wg.Go(func() {
		for {
			r, ok := t.ask(call, ss)
			t.mu.Lock()
			if e.gen != gen && !t.closed {
				gen = e.gen // changed again while asking: ask again
				t.mu.Unlock()
				continue
			}
			e.fetching = false
			e.setLocked(r, ok)
			if ok {
				t.log.Info("client roots known", "roots", r.Paths, "after", time.Since(e.askedAt).Round(time.Microsecond))
			}
			t.mu.Unlock()
			return
		}
	})
}

// ask sends one roots/list (in call's name when not nil: see
// fetchLocked) and resolves the answer.
func (t *Tracker) ask(call context.Context, ss *mcp.ServerSession) (policy.Roots, bool) {
	ctx := t.ctx
	if call != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(context.WithoutCancel(call))
		defer cancel()
		defer context.AfterFunc(t.ctx, cancel)()
	}
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	res, err := ss.ListRoots(ctx, nil)
	if err != nil {
		// The client's error text is not repeated to the agent: the
		// client controls it.
		t.log.Info("the client's roots/list failed; the next call that needs them asks again", "error", err)
		return policy.Roots{Missing: failure(err)}, false
	}
	return t.resolve(res)
}

// failure says, for the agent, why a roots/list got no list.
func failure(err error) string {
	var werr *jsonrpc.Error
	switch {
	case errors.As(err, &werr):
		return "the client answered roots/list with an error (the client's log may say why)"
	case errors.Is(err, context.DeadlineExceeded):
		return "the client did not answer roots/list in time"
	default:
		return "the server could not send roots/list to the client"
	}
}

// resolve resolves an answer and logs what it refused.
func (t *Tracker) resolve(res *mcp.ListRootsResult) (policy.Roots, bool) {
	var list []*mcp.Root
	if res != nil {
		list = res.Roots
	}
	r, refused := Resolve(list)
	for _, why := range refused {
		t.log.Warn("a client root was refused", "why", why)
	}
	return r, true
}

func (e *entry) setLocked(r policy.Roots, ok bool) {
	e.roots = &r
	e.status = StatusKnown
	if !ok {
		e.status = StatusFailed
	}
	select {
	case <-e.known:
	default:
		close(e.known)
	}
}

// Unknown returns, for a call that ran in the server's own directory
// because the client's roots were wanted and not had (r from For), a note
// that says so and why; "" when there is nothing to say.
func Unknown(r *policy.Roots, cwd string) string {
	if r == nil || len(r.Paths) > 0 || r.Missing == "" || r.Missing == NoCapability {
		return ""
	}
	return "the client's roots were not used: " + strings.TrimSuffix(r.Missing, ".") +
		"; the command ran in the server's own directory (" + cwd + "). Pass cwd, open the client on a project folder, " +
		"or ask the operator to set YIELDSHELL_DEFAULT_CWD"
}

// For returns the roots in force for a tool call, or, on the sessionless
// protocol before they are known, the answer to give instead: an input
// request for roots/list, which the call's retry answers. A call waits
// for an answer already asked for (at most firstAnswerWait, and its ctx);
// failing that, the roots say why there are none.
//
// required says the call cannot be decided without them (commands are
// confined to the roots). When they would only choose the default cwd,
// the sessionless protocol is not asked: over HTTP each of its requests
// is a session of its own, and asking would cost every such call a round
// trip. It gets nil (the server's default) unless they are known.
func (t *Tracker) For(ctx context.Context, req *mcp.CallToolRequest, required bool) (*policy.Roots, *mcp.CallToolResult) {
	if t == nil || req == nil || req.Session == nil {
		return nil, nil
	}
	ss := req.Session
	if res, ok := req.Params.InputResponses[inputKey].(*mcp.ListRootsResult); ok {
		r, _ := t.resolve(res)
		t.mu.Lock()
		t.entryLocked(ss).setLocked(r, true)
		t.mu.Unlock()
		return &r, nil
	}
	if c := req.ClientCapabilities(); c == nil || c.RootsV2 == nil {
		return &policy.Roots{Missing: NoCapability}, nil
	}
	t.mu.Lock()
	e := t.entryLocked(ss)
	if e.status == StatusKnown || e.status == StatusFailed && !canAsk(ss) {
		r := e.roots
		t.mu.Unlock()
		return r, nil
	}
	if !canAsk(ss) {
		t.mu.Unlock()
		if !required {
			return nil, nil
		}
		return nil, &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{inputKey: &mcp.ListRootsParams{}}}
	}
	ours := !e.fetching
	if ours {
		// Not asked yet (a call before initialized was handled), or the
		// last answer failed (over HTTP, often because the server asked
		// before the client could receive it): ask in this call's name.
		t.fetchLocked(ctx, ss, e)
	}
	known := e.known
	t.mu.Unlock()
	return t.await(ctx, ss, e, known, ours), nil
}

// await waits, up to firstAnswerWait, for the answer to the roots/list
// request whose arrival closes known, asking once more in this call's name
// (ours) when the answer awaited was a failure to a request not sent in
// it.
func (t *Tracker) await(ctx context.Context, ss *mcp.ServerSession, e *entry, known <-chan struct{}, ours bool) *policy.Roots {
	wait, cancel := context.WithTimeout(ctx, firstAnswerWait)
	defer cancel()
	for {
		select {
		case <-known:
		case <-wait.Done():
			return &policy.Roots{Missing: "the client has not answered roots/list yet"}
		}
		t.mu.Lock()
		r, status := e.roots, e.status
		if status == StatusFailed && !ours && !e.fetching {
			// The answer waited for was to a request not sent in this
			// call's name: ask once more in it.
			ours = true
			t.fetchLocked(ctx, ss, e)
			r = nil
		}
		known = e.known // list_changed (or initialized) came after that answer: wait for the next
		t.mu.Unlock()
		if r != nil {
			return r
		}
	}
}

// State is a session's roots as ps shows them.
type State struct {
	Status string
	Roots  *policy.Roots // nil unless Status is StatusKnown or StatusFailed
}

// Known returns the roots of req's session as they stand, without asking
// or waiting.
func (t *Tracker) Known(req *mcp.CallToolRequest) State {
	if t == nil || req == nil || req.Session == nil {
		return State{Status: StatusUnavailable}
	}
	if c := req.ClientCapabilities(); c == nil || c.RootsV2 == nil {
		return State{Status: StatusNotDeclared}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	e := t.sessions[weak.Make(req.Session)]
	if e == nil {
		return State{Status: StatusNotAsked}
	}
	return State{Status: e.status, Roots: e.roots}
}
