//go:build unix

package resources

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/mcptool"
	"github.com/yieldshell/yieldshell/internal/policy"
	"github.com/yieldshell/yieldshell/internal/poll"
	"github.com/yieldshell/yieldshell/internal/session"
)

// fixture is a Hub on a real Manager and an MCP server, with a client
// connected in memory that records its notifications.
type fixture struct {
	hub *Hub
	m   *session.Manager
	srv *mcp.Server
	cs  *mcp.ClientSession

	mu      sync.Mutex
	updated map[string][]time.Time
	listed  int
	wake    chan struct{}
}

func newFixture(t *testing.T, interval time.Duration) *fixture {
	t.Helper()
	cfg, err := policy.Load(func(string) string { return "" }, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	o, err := session.LocalOptions(nil)
	if err != nil {
		t.Fatal(err)
	}
	m, err := session.NewManager(cfg, o)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{m: m, updated: map[string][]time.Time{}, wake: make(chan struct{}, 1), hub: New(Options{Interval: interval})}
	srv := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "0"}, &mcp.ServerOptions{
		Capabilities:     &mcp.ServerCapabilities{Resources: Capabilities(), Completions: &mcp.CompletionCapabilities{}},
		SubscribeHandler: f.hub.Subscribe, UnsubscribeHandler: f.hub.Unsubscribe, CompletionHandler: f.hub.Complete})
	f.hub.Start(srv, m, cfg)
	f.srv = srv
	t.Cleanup(func() {
		f.hub.Close()
		m.Shutdown(context.Background())
	})
	f.cs = f.connect(t, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
			f.mu.Lock()
			f.updated[r.Params.URI] = append(f.updated[r.Params.URI], time.Now())
			f.mu.Unlock()
			f.poke()
		},
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) {
			f.mu.Lock()
			f.listed++
			f.mu.Unlock()
			f.poke()
		},
	})
	return f
}

// connect connects a client to the fixture's server, in memory.
func (f *fixture) connect(t *testing.T, o *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := f.srv.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, o).
		Connect(t.Context(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func (f *fixture) poke() {
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

// count is how many updated notifications for uri arrived at or after since.
func (f *fixture) count(uri string, since time.Time) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, at := range f.updated[uri] {
		if !at.Before(since) {
			n++
		}
	}
	return n
}

// await waits for cond, looking again at each notification.
func (f *fixture) await(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	timer := time.NewTimer(within)
	defer timer.Stop()
	for !cond() {
		select {
		case <-f.wake:
		case <-timer.C:
			t.Fatalf("no %s within %v", what, within)
		}
	}
}

func (f *fixture) start(t *testing.T, command, name string, tty bool) *session.Process {
	t.Helper()
	p, err := f.m.Start(t.Context(), session.Spec{Command: command, SideEffects: []string{"NONE"}, Name: name, TTY: tty})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = p.Stop(context.Background(), syscall.SIGKILL, 0, session.EndedByStop) })
	return p
}

func (f *fixture) subscribe(t *testing.T, uri string) {
	t.Helper()
	if err := f.cs.Subscribe(t.Context(), &mcp.SubscribeParams{URI: uri}); err != nil {
		t.Fatalf("subscribing to %s: %v", uri, err)
	}
}

// A process that prints all the time is told at most once per interval,
// and goes on being told.
func TestUpdatesThrottled(t *testing.T) {
	const interval = 100 * time.Millisecond
	f := newFixture(t, interval)
	p := f.start(t, "while :; do echo tick; sleep 0.002; done", "ticker", false)
	uri := mcptool.ProcessURI(p.ID, mcptool.ViewLog)
	f.subscribe(t, uri)
	f.await(t, 5*time.Second, "first notification", func() bool { return f.count(uri, time.Time{}) > 0 })
	start := time.Now()
	<-time.After(time.Second) // the window notifications are counted over
	got := f.count(uri, start)
	if most := int(time.Second/interval) + 1; got > most || got < 3 {
		t.Errorf("%d notifications in 1s at an interval of %v, want 3..%d", got, interval, most)
	}
}

// An input wait is told once, and the end at once even right after
// another notification.
func TestUpdatesAtInputWaitAndEnd(t *testing.T) {
	f := newFixture(t, time.Hour) // output alone would be told once an hour
	p := f.start(t, "read x; echo got $x; read y", "asker", true)
	uri := mcptool.ProcessURI("asker", mcptool.ViewLog)
	f.subscribe(t, uri)
	f.await(t, 5*time.Second, "notification of the input wait", func() bool { return f.count(uri, time.Time{}) == 1 })
	if err := p.Type(t.Context(), "hello", nil, true, false); err != nil {
		t.Fatal(err)
	}
	// Output, then the second read: the output is held for the hour, the
	// new wait is told at once.
	f.await(t, 5*time.Second, "notification of the second input wait", func() bool { return f.count(uri, time.Time{}) == 2 })
	if _, err := p.Stop(t.Context(), syscall.SIGTERM, time.Second, session.EndedByStop); err != nil {
		t.Fatal(err)
	}
	f.await(t, 5*time.Second, "notification of the end", func() bool { return f.count(uri, time.Time{}) == 3 })
}

// Unsubscribing stops the notifications and the follower.
func TestUnsubscribeStops(t *testing.T) {
	f := newFixture(t, 20*time.Millisecond)
	p := f.start(t, "while :; do echo tick; sleep 0.005; done", "", false)
	uri := mcptool.ProcessURI(p.ID, mcptool.ViewLog)
	f.subscribe(t, uri)
	f.await(t, 5*time.Second, "first notification", func() bool { return f.count(uri, time.Time{}) > 0 })
	if err := f.cs.Unsubscribe(t.Context(), &mcp.UnsubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	// The follower stops once the Hub has seen the unsubscription.
	poll.Until(t, 5*time.Second, "the follower to stop", func() bool {
		f.hub.mu.Lock()
		defer f.hub.mu.Unlock()
		return len(f.hub.followers) == 0
	})
	after := time.Now()
	<-time.After(200 * time.Millisecond) // ten intervals
	if n := f.count(uri, after); n != 0 {
		t.Errorf("%d notifications after unsubscribing", n)
	}
}

// Subscriptions name processes the server knows, in URIs that parse; their
// number is bounded.
func TestSubscribeRefuses(t *testing.T) {
	f := newFixture(t, DefaultInterval)
	p := f.start(t, "sleep 60", "", false)
	for uri, code := range map[string]int64{
		mcptool.ProcessURI("proc_000000000000", mcptool.ViewLog): CodeNotFound,
		mcptool.ProcessURI("..", mcptool.ViewLog):                CodeNotFound,
		"yieldshell://process/" + p.ID + "/log?x=1":              jsonrpc.CodeInvalidParams,
		"yieldshell://process/" + p.ID:                           jsonrpc.CodeInvalidParams,
	} {
		err := f.cs.Subscribe(t.Context(), &mcp.SubscribeParams{URI: uri})
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != code {
			t.Errorf("subscribing to %s: %v, want code %d", uri, err, code)
		}
	}
	uri := func(i int) string {
		return mcptool.ProcessURI(p.ID, mcptool.ViewLog) + "?since_seq=" + strconv.Itoa(i)
	}
	sub := func(cs *mcp.ClientSession, i int) error {
		return cs.Subscribe(t.Context(), &mcp.SubscribeParams{URI: uri(i)})
	}
	// One session's subscriptions are bounded: another's are not taken.
	for i := range maxSessionSubscriptions {
		if err := sub(f.cs, i); err != nil {
			t.Fatalf("subscription %d: %v", i, err)
		}
	}
	if err := sub(f.cs, maxSessionSubscriptions); err == nil {
		t.Error("a session's subscriptions are not bounded")
	}
	if err := sub(f.cs, 0); err != nil {
		t.Errorf("subscribing again to a URI: %v", err)
	}
	if err := f.cs.Unsubscribe(t.Context(), &mcp.UnsubscribeParams{URI: uri(0)}); err != nil {
		t.Fatal(err)
	}
	if err := sub(f.cs, maxSessionSubscriptions); err != nil {
		t.Errorf("after an unsubscription: %v", err)
	}
	// Every session's together are bounded too.
	n := maxSessionSubscriptions
	var others []*mcp.ClientSession
	for n < maxSubscriptions {
		cs := f.connect(t, nil)
		others = append(others, cs)
		for range maxSessionSubscriptions {
			n++
			if err := sub(cs, n); err != nil {
				t.Fatalf("subscription %d: %v", n, err)
			}
		}
	}
	if err := sub(f.connect(t, nil), n+1); err == nil {
		t.Error("subscriptions are not bounded")
	}
	// A client that goes away without unsubscribing leaves room for others.
	_ = others[0].Close()
	_ = f.cs.Close()
	other := f.connect(t, nil)
	poll.Until(t, 5*time.Second, "the gone client's subscriptions to be dropped", func() bool {
		return other.Subscribe(t.Context(), &mcp.SubscribeParams{URI: mcptool.ProcessURI(p.ID, mcptool.ViewLog)}) == nil
	})
}

// resources/list holds the running processes' resources, and the client
// is told when it changes.
func TestListFollowsProcesses(t *testing.T) {
	f := newFixture(t, DefaultInterval)
	list := func() []string {
		res, err := f.cs.ListResources(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var uris []string
		for _, r := range res.Resources {
			uris = append(uris, r.URI)
		}
		slices.Sort(uris)
		return uris
	}
	p := f.start(t, "cat", "", true)
	want := []string{mcptool.ProcessURI(p.ID, mcptool.ViewLog), mcptool.ProcessURI(p.ID, mcptool.ViewScreen)}
	f.await(t, 5*time.Second, "list_changed after the start", func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.listed > 0
	})
	if got := list(); !slices.Equal(got, want) {
		t.Errorf("listed %v, want %v", got, want)
	}
	if _, err := p.Stop(t.Context(), syscall.SIGKILL, 0, session.EndedByStop); err != nil {
		t.Fatal(err)
	}
	f.await(t, 5*time.Second, "list_changed after the end", func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.listed > 1
	})
	if got := list(); len(got) != 0 {
		t.Errorf("listed after the end: %v", got)
	}
}

// Close joins every follower, even of processes that go on running.
func TestCloseJoins(t *testing.T) {
	f := newFixture(t, DefaultInterval)
	for range 3 {
		p := f.start(t, "sleep 60", "", false)
		f.subscribe(t, mcptool.ProcessURI(p.ID, mcptool.ViewLog))
	}
	done := make(chan struct{})
	go func() { f.hub.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not return")
	}
}

func TestComplete(t *testing.T) {
	f := newFixture(t, DefaultInterval)
	a := f.start(t, "sleep 60", "Alpha Web", false)
	f.start(t, "sleep 60", "beta", false)
	for _, c := range []struct {
		uri, arg, value string
		want            []string
	}{
		{logTemplate().URITemplate, "process_id", "alpha", []string{"alpha-web"}},
		{"yieldshell://process/{process_id}/screen", "process_id", "Alpha W", []string{"alpha-web"}},
		{logTemplate().URITemplate, "process_id", a.ID, []string{a.ID}},
		{logTemplate().URITemplate, "process_id", "nothing", []string{}},
		{logTemplate().URITemplate, "since_seq", "", []string{}},
		{"yieldshell://process/{process_id}/stdin", "process_id", "", []string{}},
	} {
		res, err := f.cs.Complete(t.Context(), &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/resource", URI: c.uri},
			Argument: mcp.CompleteParamsArgument{Name: c.arg, Value: c.value}})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(res.Completion.Values, c.want) {
			t.Errorf("%s %s=%q: %v, want %v", c.uri, c.arg, c.value, res.Completion.Values, c.want)
		}
	}
}

// One process's changes send a bounded number of notifications, however
// many URIs name it: each change tells maxNotified of them, in turn.
func TestUpdatesBoundedPerProcess(t *testing.T) {
	f := newFixture(t, 20*time.Millisecond)
	p := f.start(t, "yes", "", false)
	uris := make([]string, maxSessionSubscriptions)
	for i := range uris {
		uris[i] = mcptool.ProcessURI(p.ID, mcptool.ViewLog) + "?since_seq=" + strconv.Itoa(i)
		if err := f.cs.Subscribe(t.Context(), &mcp.SubscribeParams{URI: uris[i]}); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	// Every URI is told in turn.
	f.await(t, 10*time.Second, "a notification for every URI", func() bool {
		for _, u := range uris {
			if f.count(u, start) == 0 {
				return false
			}
		}
		return true
	})
	el := time.Since(start)
	total := 0
	for _, u := range uris {
		total += f.count(u, start)
	}
	// At most 16 a change (maxNotified), at most one change an interval (plus
	// the first, told at once).
	if limit := 16 * (int(el/(20*time.Millisecond)) + 2); total > limit {
		t.Errorf("%d notifications in %v for %d URIs of one process, over %d", total, el, len(uris), limit)
	}
}
