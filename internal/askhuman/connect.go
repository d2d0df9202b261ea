package askhuman

import (
	"context"
	"fmt"
	"net"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
	"weak"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/policy"
)

// Held connects (issue 40 item 4). A sandboxed command's network proxy
// holds a connection to a destination its host list does not name and
// asks whether it may proceed (netproxy.Config.Approve). With
// YIELDSHELL_ASK, ConnectApprover's function puts that to the person
// through the client whose call started the command: allow once (this
// connection), allow for this session (every later connection to that
// host and port from this client's commands) or deny. A connect happens
// outside any tool call, so the question is a server-initiated
// elicitation/create, which a client of the 2026-07-28 protocol cannot
// take: nobody is asked then, and the destination is refused.

// connectWait bounds how long a held connect waits for the person.
const connectWait = time.Minute

// maxRefusedConnects is how many destinations of one command the person
// may refuse before the rest are refused without asking: a program trying
// host after host must not flood them with questions.
const maxRefusedConnects = 3

// ConnectAsk says whom to ask about a command's held connects.
type ConnectAsk struct {
	// Session is the client whose call started the command.
	Session *mcp.ServerSession
	// Command is the command, as answers show it (redacted).
	Command string
	// Wait bounds each question; 0 is a minute. Unanswered, it is a deny.
	Wait time.Duration
}

// connects is one client session's memory of held connects: the
// destinations allowed for the session, and the questions in flight.
type connects struct {
	allowed map[string]bool
	asking  map[string]chan struct{} // closed when answered
}

// ConnectApprover returns the function that decides a held connect of the
// command a describes, true only when the person allowed it; nil when
// nobody may be asked (no YIELDSHELL_ASK, no session, a client without
// form elicitation or on the 2026-07-28 protocol): the proxy refuses then.
// A destination the person did not allow (deny, decline, cancel, no answer
// within a.Wait) is refused for the rest of the command without asking
// again, and after three such, every destination the session has not
// allowed is; connections to one destination held at once wait for one
// answer.
func (h *Human) ConnectApprover(cfg *policy.Config, a ConnectAsk) func(ctx context.Context, host string, port uint16) bool {
	if h == nil || !cfg.Rules.Ask || a.Session == nil || !canElicitForm(a.Session) {
		return nil
	}
	if a.Wait <= 0 {
		a.Wait = connectWait
	}
	var mu sync.Mutex
	refused := map[string]bool{} // this command's: not asked again
	return func(ctx context.Context, host string, port uint16) bool {
		dest := net.JoinHostPort(host, strconv.Itoa(int(port)))
		mu.Lock()
		if refused[dest] {
			mu.Unlock()
			return false
		}
		ask := len(refused) < maxRefusedConnects
		mu.Unlock()
		decision := h.decideConnect(ctx, a, dest, ask)
		if decision == deny && ask && ctx.Err() == nil { // not for a connection given up, nor past the bound
			mu.Lock()
			refused[dest] = true
			mu.Unlock()
		}
		return decision != deny
	}
}

// decideConnect returns the person's decision on dest (allowSession when
// the session allowed it before), waiting for a question about dest in
// flight before asking its own; without ask, deny instead of asking.
func (h *Human) decideConnect(ctx context.Context, a ConnectAsk, dest string, ask bool) string {
	for {
		h.mu.Lock()
		if h.closed {
			h.mu.Unlock()
			return deny
		}
		c := h.connectsLocked(a.Session)
		if c.allowed[dest] {
			h.mu.Unlock()
			return allowSession
		}
		if !ask {
			h.mu.Unlock()
			return deny
		}
		if wait := c.asking[dest]; wait != nil {
			h.mu.Unlock()
			select {
			case <-wait:
				continue // allowed for the session, or ask ourselves
			case <-ctx.Done():
				return deny
			}
		}
		answered := make(chan struct{})
		c.asking[dest] = answered
		h.mu.Unlock()

		decision := h.askConnect(ctx, a, dest)
		h.mu.Lock()
		if decision == allowSession {
			c.allowed[dest] = true
		}
		delete(c.asking, dest)
		h.mu.Unlock()
		close(answered)
		return decision
	}
}

// connectsLocked returns ss's memory, made on first use and dropped when
// the session is collected. h.mu is held.
func (h *Human) connectsLocked(ss *mcp.ServerSession) *connects {
	k := weak.Make(ss)
	c := h.connects[k]
	if c == nil {
		c = &connects{allowed: map[string]bool{}, asking: map[string]chan struct{}{}}
		h.connects[k] = c
		runtime.AddCleanup(ss, h.forgetConnects, k)
	}
	return c
}

func (h *Human) forgetConnects(k weak.Pointer[mcp.ServerSession]) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.connects, k)
}

// askConnect asks the person about dest, bounded by a.Wait and by Close:
// allowOnce, allowSession or deny (for anything but an accepted
// allowance).
func (h *Human) askConnect(ctx context.Context, a ConnectAsk, dest string) string {
	ctx, cancel := context.WithTimeout(ctx, a.Wait)
	defer cancel()
	defer context.AfterFunc(h.ctx, cancel)()
	res, err := a.Session.Elicit(ctx, &mcp.ElicitParams{Mode: "form", Message: connectMessage(a.Command, dest, a.Wait),
		RequestedSchema: decisionSchema("Allow this connection?", allowOnce, allowSession, deny)})
	if err != nil {
		h.log.Debug("asking about a held connect failed", "error", err)
		return deny
	}
	if d, _ := res.Content[decisionField].(string); res.Action == "accept" && (d == allowOnce || d == allowSession) {
		h.log.Info("the user allowed a sandboxed command's connection", "destination", dest, "decision", d)
		return d
	}
	return deny
}

// connectMessage draws the question, each value escaped on a line of its
// own (as approvalMessage does).
func connectMessage(command, dest string, wait time.Duration) string {
	var b strings.Builder
	b.WriteString("A sandboxed command wants to connect to a destination this server's network allow-list does not name; " +
		"the connection is held until you decide.\n" +
		"Each value below is on one line; control characters are shown as escapes (\\n, \\x1b).\n\n")
	fmt.Fprintf(&b, "Destination: %s\n", shown(dest))
	fmt.Fprintf(&b, "Command: %s\n", shown(command))
	fmt.Fprintf(&b, "\n\"%s\": this connection only. \"%s\": every later connection to this destination from this client's commands. "+
		"\"%s\", or no answer within %s: refused.", allowOnce, allowSession, deny, wait)
	return b.String()
}

// canElicitForm reports whether the server may send ss a form
// elicitation of its own: the client declared it, on a protocol before
// 2026-07-28 (which takes input requests within a call only).
func canElicitForm(ss *mcp.ServerSession) bool {
	p := ss.InitializeParams()
	if p == nil || p.ProtocolVersion >= "2026-07-28" || p.Capabilities == nil {
		return false
	}
	e := p.Capabilities.Elicitation
	return e != nil && (e.Form != nil || e.URL == nil)
}
