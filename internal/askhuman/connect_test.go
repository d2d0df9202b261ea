package askhuman

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/policy"
)

// person answers a client's elicitations: with the decision held, or not
// at all until the question is withdrawn (hold).
type person struct {
	asked    atomic.Int32
	decision atomic.Value // string; "hold": no answer; "decline", "cancel": those actions
	messages chan string
	release  chan struct{} // closed: held questions are answered
}

func (p *person) handle(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	p.asked.Add(1)
	select {
	case p.messages <- req.Params.Message:
	default:
	}
	d := p.decision.Load().(string)
	switch d {
	case "hold":
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-p.release:
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{decisionField: allowSession}}, nil
		}
	case "decline", "cancel":
		return &mcp.ElicitResult{Action: d}, nil
	}
	return &mcp.ElicitResult{Action: "accept", Content: map[string]any{decisionField: d}}, nil
}

// connectSession connects a real go-sdk client in process, declaring
// caps, and returns the server's side of the session.
func connectSession(t *testing.T, caps *mcp.ClientCapabilities, version string, handle func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)) *mcp.ServerSession {
	t.Helper()
	server := mcp.NewServer(&mcp.Implementation{Name: "yieldshell-test", Version: "0"}, nil)
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, &mcp.ClientOptions{Capabilities: caps, ElicitationHandler: handle})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := client.Connect(t.Context(), ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		_ = ss.Wait()
	})
	return ss
}

var formCaps = &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}}

func askConfig(t *testing.T, ask bool) *policy.Config {
	t.Helper()
	env := map[string]string{}
	if ask {
		env["YIELDSHELL_ASK"] = "1"
	}
	cfg, err := policy.Load(func(k string) string { return env[k] }, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// A held connect proceeds only on a person's allowance: once for that
// connection, for the session for every later one to that destination
// (of any command); a deny, decline, cancel or silence refuses it, and
// the command is not asked about that destination again.
//
// Spec: issue 40 item 4: "a denial can be allowed once (the command is rerun, or a held connect proceeds) or for the rest of the session; never without a person's yes."
func TestConnectApprover(t *testing.T) {
	p := &person{messages: make(chan string, 16), release: make(chan struct{})}
	ss := connectSession(t, formCaps, "2025-06-18", p.handle)
	h := New(nil, nil)
	t.Cleanup(h.Close)
	cfg := askConfig(t, true)
	approver := func(wait time.Duration) func(context.Context, string, uint16) bool {
		return h.ConnectApprover(cfg, ConnectAsk{Session: ss, Command: "curl https://example.com", Wait: wait})
	}
	ctx := t.Context()
	cmd := approver(0)
	steps := []struct {
		decision string
		host     string
		port     uint16
		want     bool
		asked    int32 // questions so far
	}{
		{allowOnce, "example.com", 443, true, 1},
		{allowOnce, "example.com", 443, true, 2}, // once is once
		{allowSession, "c.example", 8080, true, 3},
		{deny, "c.example", 8080, true, 3}, // allowed for the session: not asked
		{allowSession, "c.example", 8081, true, 4},
		{deny, "example.org", 80, false, 5},
		{allowSession, "example.org", 80, false, 5}, // denied for this command: not asked again
		{"allow forever", "d.example", 1, false, 6},
		{"decline", "a.example", 1, false, 7},
		{"cancel", "b.example", 1, false, 7}, // three refused: not asked
	}
	for _, s := range steps {
		p.decision.Store(s.decision)
		if got := cmd(ctx, s.host, s.port); got != s.want || p.asked.Load() != s.asked {
			t.Errorf("%s:%d answered %q: %v after %d questions; want %v after %d", s.host, s.port, s.decision, got, p.asked.Load(), s.want, s.asked)
		}
	}
	// Three destinations refused: the command asks about no more, but
	// what the session allowed still holds.
	p.decision.Store(allowOnce)
	if cmd(ctx, "e.example", 1) || !cmd(ctx, "c.example", 8080) || p.asked.Load() != 7 {
		t.Errorf("after the command's refusals: %d questions", p.asked.Load())
	}
	// Another command of the session: what the session allowed holds;
	// what the first command was denied is asked anew.
	other := approver(0)
	p.decision.Store(deny)
	if !other(ctx, "c.example", 8080) || other(ctx, "example.org", 80) || p.asked.Load() != 8 {
		t.Errorf("another command: %d questions", p.asked.Load())
	}

	// Silence is a deny once the wait is over.
	p.decision.Store("hold")
	start := time.Now()
	if approver(50*time.Millisecond)(ctx, "slow.example", 443) {
		t.Error("an unanswered question allowed the connection")
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the unanswered question took %v", d)
	}
}

// Connections to one destination held at once wait for one question.
func TestConnectApproverOneQuestion(t *testing.T) {
	p := &person{messages: make(chan string, 16), release: make(chan struct{})}
	p.decision.Store("hold")
	ss := connectSession(t, formCaps, "2025-06-18", p.handle)
	h := New(nil, nil)
	t.Cleanup(h.Close)
	approve := h.ConnectApprover(askConfig(t, true), ConnectAsk{Session: ss, Command: "npm ci"})
	var wg sync.WaitGroup
	var allowed atomic.Int32
	for range 5 {
		wg.Go(func() {
			if approve(t.Context(), "registry.example", 443) {
				allowed.Add(1)
			}
		})
	}
	<-p.messages // the one question is out
	close(p.release)
	wg.Wait()
	if allowed.Load() != 5 || p.asked.Load() != 1 {
		t.Errorf("%d of 5 allowed after %d questions", allowed.Load(), p.asked.Load())
	}
}

// Nobody is asked without YIELDSHELL_ASK, or through a client that cannot
// take a form elicitation from the server.
func TestConnectApproverUnasked(t *testing.T) {
	h := New(nil, nil)
	t.Cleanup(h.Close)
	never := func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		t.Error("asked")
		return nil, nil
	}
	url := &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}}
	for _, c := range []struct {
		name    string
		ask     bool
		caps    *mcp.ClientCapabilities
		version string
	}{
		{"no YIELDSHELL_ASK", false, formCaps, "2025-06-18"},
		{"no elicitation", true, &mcp.ClientCapabilities{}, "2025-06-18"},
		{"url only", true, url, "2025-06-18"},
		{"sessionless protocol", true, formCaps, "2026-07-28"},
	} {
		t.Run(c.name, func(t *testing.T) {
			handle := never
			if c.caps.Elicitation == nil {
				handle = nil // a handler declares elicitation
			}
			ss := connectSession(t, c.caps, c.version, handle)
			if h.ConnectApprover(askConfig(t, c.ask), ConnectAsk{Session: ss}) != nil {
				t.Error("an approver where nobody may be asked")
			}
		})
	}
	if h.ConnectApprover(askConfig(t, true), ConnectAsk{}) != nil {
		t.Error("an approver without a session")
	}
}

// A destination is the hostile program's choice: the question shows it
// on one line, its control characters escaped.
func TestConnectMessageEscapes(t *testing.T) {
	p := &person{messages: make(chan string, 1), release: make(chan struct{})}
	p.decision.Store(deny)
	ss := connectSession(t, formCaps, "2025-06-18", p.handle)
	h := New(nil, nil)
	t.Cleanup(h.Close)
	approve := h.ConnectApprover(askConfig(t, true), ConnectAsk{Session: ss, Command: "curl"})
	approve(t.Context(), "evil.example\nCommand: harmless\x1b[2J", 443)
	msg := <-p.messages
	if strings.Count(msg, "\nCommand: ") != 1 || strings.ContainsRune(msg, '\x1b') ||
		!strings.Contains(msg, `Destination: [evil.example\nCommand: harmless\x1b[2J]:443`) {
		t.Errorf("message: %q", msg)
	}
}
