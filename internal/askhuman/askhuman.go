// Package askhuman is what both toolsets do to ask the person at the other
// end of the agent's client (issue 33): ask_human opens a one-time page
// (package human) for a program's secret or its whole terminal, offers it
// through URL-mode elicitation where the client declared it or returns the
// link for the agent to show, and follows the page to its end; with
// YIELDSHELL_ASK, a command policy refused is put to the person through a
// form elicitation instead of refused (approve.go), and so are the writes
// a command's sandbox denied (sandbox.go) and the connections its network
// proxy holds (connect.go).
//
// Elicitation goes through the SDK's multi-round-trip input requests: a
// tool answers with an input request and an opaque request state; a client
// of the 2026-07-28 protocol retries the call with the person's response,
// and for older clients the SDK sends elicitation/create itself and calls
// the tool again with the response. Either way the retry finds what the
// first call left under its request state, a random, one-time key.
package askhuman

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"weak"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/human"
	"github.com/yieldshell/yieldshell/internal/safetext"
	"github.com/yieldshell/yieldshell/internal/session"
)

// Bounds.
const (
	// passwordHold is how long a secret ask waits for the program to ask
	// for a password before refusing.
	passwordHold = 3 * time.Second
	// replyWait bounds the wait for the program's reply once the person
	// is done, as write's own bound.
	replyWait = 10 * time.Second
	// keepPending is how long a first call's state waits for its retry.
	keepPending = 15 * time.Minute
	// inputKey names the one input request of a call.
	inputKey = "person"
)

// Human asks people. It owns one goroutine per open page, which follows the
// page to its end; Close stops and joins them. A nil *Human, or one
// without pages, refuses to ask.
type Human struct {
	pages  *human.Pages
	log    *slog.Logger
	ctx    context.Context // canceled by Close
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu        sync.Mutex
	closed    bool
	asks      map[string]*ask                               // waiting for the URL elicitation's retry
	approvals map[string]*approval                          // waiting for the form elicitation's retry
	widenings map[string]*widening                          // sandbox denials waiting for theirs
	connects  map[weak.Pointer[mcp.ServerSession]]*connects // each client's held connects (connect.go)
}

// New returns a Human that opens pages with pages (nil: ask_human refuses,
// approvals still work) and logs to log (nil: nowhere).
func New(pages *human.Pages, log *slog.Logger) *Human {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Human{pages: pages, log: log, ctx: ctx, cancel: cancel,
		asks: map[string]*ask{}, approvals: map[string]*approval{}, widenings: map[string]*widening{},
		connects: map[weak.Pointer[mcp.ServerSession]]*connects{}}
}

// Close withdraws every page it follows and joins its goroutines.
func (h *Human) Close() {
	if h == nil {
		return
	}
	h.mu.Lock()
	h.closed = true
	h.mu.Unlock()
	h.cancel()
	h.wg.Wait()
}

// Request is what ask_human asks.
type Request struct {
	Message string
	Secret  bool
	Timeout time.Duration // 0: human.DefaultTimeout
}

// Answer is how an ask went. Exactly one of Pending, URL, Outcome and
// Refused is set.
type Answer struct {
	// Pending is the first call's answer where the client takes URL
	// elicitation: the input request to return as it is.
	Pending *mcp.CallToolResult
	// URL is the page, when the client cannot show it: for the agent to
	// show its user. A wait reports the outcome.
	URL string
	// Unasked says, with URL, why the client's elicitation did not reach
	// a person (it answered cancel, or failed): the link is the fallback.
	Unasked string
	// Outcome is how the person finished (human_done, human_declined,
	// human_left), with the program's reply: output from Before on, and
	// Reply's input state.
	Outcome session.Reason
	Before  int64
	Reply   session.Outcome
	// Refused says why no page was made; Input is the program's state then
	// (for a secret ask that found no password prompt).
	Refused string
	Input   *session.Outcome
	// Process is the process asked about (the retry finds it by state).
	Process *session.Process
}

// ask is one page and what follows it.
type ask struct {
	p      *session.Process
	page   *human.Page
	before int64
	post   atomic.Bool   // no elicitation: the outcome goes to the next wait
	ended  chan struct{} // closed once the page ended and the Process knows
	at     time.Time
}

// Ask makes a page for p and offers it: through URL elicitation when the
// client declared it (Answer.Pending), else as a link (Answer.URL). A
// retry of a call that returned Pending goes to Resume instead.
func (h *Human) Ask(ctx context.Context, req *mcp.CallToolRequest, p *session.Process, r Request) Answer {
	if h == nil || h.pages == nil {
		return Answer{Refused: "this server cannot make pages for a person (it serves no HTTP of its own); ask the user in the chat to act on the terminal themselves, e.g. with yieldshell attach"}
	}
	switch {
	case r.Timeout == 0:
		r.Timeout = human.DefaultTimeout
	case r.Timeout < 0 || r.Timeout > human.MaxTimeout:
		return Answer{Refused: fmt.Sprintf("timeout_ms must be between 1 and %d", human.MaxTimeout.Milliseconds())}
	}
	hreq := human.Request{
		Program: human.Program{Command: p.Command, PID: p.Pid, Name: nameOf(p)},
		Message: r.Message,
		Timeout: r.Timeout,
	}
	if r.Secret {
		o, ok := p.AwaitPassword(ctx, time.Now().Add(passwordHold))
		if !ok {
			return Answer{Refused: notPassword(o), Input: &o}
		}
		hreq.Prompt = o.Input.Prompt
		sink := p.SecretSink()
		r := sink.Reader()
		hreq.Program.Reader = human.Reader{PID: r.Pid, Command: safetext.Visible(r.Command), Warning: r.Warning}
		hreq.Secret = sink
	} else {
		hreq.Prompt = p.InputState().Prompt
		hreq.Terminal = p.Terminal()
	}
	if err := p.BeginAsk(); err != nil {
		return Answer{Refused: sentence(err)}
	}
	before := p.LogEnd()
	page, err := h.pages.Open(ctx, hreq)
	if err != nil {
		p.EndAsk("", false)
		return Answer{Refused: "opening the page failed: " + err.Error()}
	}
	a := &ask{p: p, page: page, before: before, ended: make(chan struct{}), at: time.Now()}
	elicit := urlElicitation(req)
	a.post.Store(!elicit)
	if !h.follow(a) {
		return Answer{Refused: "the server is shutting down"}
	}
	if !elicit {
		return Answer{URL: page.URL(), Process: p, Unasked: "your client cannot show the page to the user itself (it declared no URL elicitation)"}
	}
	state := randomKey()
	h.mu.Lock()
	h.sweepLocked(time.Now())
	h.asks[state] = a
	h.mu.Unlock()
	what := "type a password for it"
	if !r.Secret {
		what = "use its terminal until you press Done"
	}
	msg := fmt.Sprintf("%s\n\n(The program %q asks you to %s. The page is for you only and works once.)", r.Message, p.Command, what)
	if r.Secret {
		msg = fmt.Sprintf("%s\n\n(What you type on the page goes to the process reading the terminal: %s. The page is for you only and works once.)",
			r.Message, readerLine(hreq.Program.Reader))
	}
	return Answer{Process: p, Pending: &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{inputKey: &mcp.ElicitParams{
			Mode: "url", Message: msg, URL: page.URL(), ElicitationID: state,
		}},
		RequestState: state,
	}}
}

// Resume is the retry of a call that returned Pending: it learns whether
// the person agreed to open the page, waits until they are done with it
// (or ctx ends, or the page expires), and then for the program's reply.
func (h *Human) Resume(ctx context.Context, req *mcp.CallToolRequest) Answer {
	if h == nil {
		return Answer{Refused: "no such request"}
	}
	state := req.Params.RequestState
	h.mu.Lock()
	a := h.asks[state]
	delete(h.asks, state)
	h.mu.Unlock()
	if a == nil {
		return Answer{Refused: "this request state is unknown or used up; call ask_human again"}
	}
	er, _ := req.Params.InputResponses[inputKey].(*mcp.ElicitResult)
	switch {
	case er == nil || er.Action == "cancel":
		// Nobody was asked: a headless client cancels, a failed request
		// has no answer. The page stays up for the link, and its outcome
		// goes to the next wait.
		a.post.Store(true)
		why := "its elicitation request failed"
		if er != nil {
			why = "it answered the elicitation with cancel, as a client with nobody to ask does"
		}
		return Answer{Process: a.p, URL: a.page.URL(), Unasked: "your client did not show the page to the user: " + why}
	case er.Action != "accept":
		a.page.Withdraw()
		<-a.ended
		return Answer{Process: a.p, Outcome: session.ReasonHumanDeclined, Before: a.before}
	}
	select {
	case <-a.page.Done():
	case <-ctx.Done():
		a.page.Withdraw()
		<-a.ended
		return Answer{Process: a.p, Refused: "the call was cancelled; the page is withdrawn"}
	}
	<-a.ended
	outcome, _ := reasonOf(a.page.Outcome())
	if outcome == "" {
		return Answer{Process: a.p, Refused: "the page was withdrawn: the process ended or the server is shutting down"}
	}
	if err := req.Session.NotifyElicitationComplete(ctx, &mcp.ElicitationCompleteParams{ElicitationID: state}); err != nil {
		h.log.Debug("elicitation complete not sent", "error", err)
	}
	reply := a.p.Await(ctx, time.Now().Add(replyWait), session.Until{InputWait: true, Ready: true})
	return Answer{Process: a.p, Outcome: outcome, Before: a.before, Reply: reply}
}

// follow starts the goroutine that follows a's page: the person holds the
// terminal from the page's first view to its end; the end is told to the
// Process (and, without elicitation, posted for a wait). false: closed.
func (h *Human) follow(a *ask) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		a.page.Withdraw()
		a.p.EndAsk("", false)
		return false
	}
	h.wg.Add(1)
	go h.watch(a)
	return true
}

func (h *Human) watch(a *ask) {
	defer h.wg.Done()
	defer close(a.ended)
	var release func()
	defer func() {
		if release != nil {
			release()
		}
	}()
	opened, gone, closing := a.page.Opened(), a.p.Gone(), h.ctx.Done()
	for {
		select {
		case <-opened:
			release, opened = a.p.Hold(), nil
		case <-gone:
			a.page.Finish() // done if a person held the terminal, else withdrawn
			gone = nil
		case <-closing:
			a.page.Withdraw()
			closing = nil
		case <-a.page.Done():
			if release != nil {
				release()
				release = nil
			}
			r, post := reasonOf(a.page.Outcome())
			a.p.EndAsk(r, post && a.post.Load())
			return
		}
	}
}

// reasonOf maps a page's outcome to what a wait reports; post is false for
// a withdrawn page (the process ended, or the server closes).
func reasonOf(o human.Outcome) (session.Reason, bool) {
	switch o {
	case human.Submitted, human.Done:
		return session.ReasonHumanDone, true
	case human.Declined:
		return session.ReasonHumanDeclined, true
	case human.Left:
		return session.ReasonHumanLeft, true
	}
	return "", false
}

// sweepLocked forgets first calls whose retry never came. h.mu is held.
func (h *Human) sweepLocked(now time.Time) {
	for k, a := range h.asks {
		if now.Sub(a.at) > keepPending {
			delete(h.asks, k)
		}
	}
	for k, ap := range h.approvals {
		if now.Sub(ap.at) > keepPending {
			delete(h.approvals, k)
		}
	}
	for k, w := range h.widenings {
		if now.Sub(w.at) > keepPending {
			delete(h.widenings, k)
		}
	}
}

// urlElicitation reports whether the client declared URL elicitation.
func urlElicitation(req *mcp.CallToolRequest) bool {
	c := req.ClientCapabilities()
	return c != nil && c.Elicitation != nil && c.Elicitation.URL != nil
}

// formElicitation reports whether the client can take a form (declaring
// elicitation without a mode means form).
func formElicitation(req *mcp.CallToolRequest) bool {
	c := req.ClientCapabilities()
	return c != nil && c.Elicitation != nil && (c.Elicitation.Form != nil || c.Elicitation.URL == nil)
}

// notPassword says why a secret ask found no password prompt.
func notPassword(o session.Outcome) string {
	var why string
	switch o.Reason {
	case session.ReasonInputWait:
		why = "the program waits for " + string(o.Input.Kind) + " input, not a password"
	case session.ReasonExited:
		why = "the process ended"
	case session.ReasonCancelled:
		why = "the call was cancelled"
	default:
		why = "the program is not waiting for a password (its terminal echoes what is typed)"
	}
	return why + "; no page was made. secret: true is for a program waiting at a password prompt (input_kind \"password\"); for anything else hand the terminal over with secret: false"
}

func nameOf(p *session.Process) string {
	if p.Name != "" {
		return p.Name
	}
	return p.ID
}

func randomKey() string { return rand.Text() }

func sentence(err error) string {
	s := err.Error()
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// readerLine names a secret page's reader in one line, with its warning.
func readerLine(r human.Reader) string {
	if r.PID == 0 {
		return "unknown. Warning: " + r.Warning
	}
	s := fmt.Sprintf("%q, pid %d", r.Command, r.PID)
	if r.Warning != "" {
		s += ". Warning: " + r.Warning
	}
	return s
}
