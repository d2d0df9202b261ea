package roots

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/poll"
	"github.com/yieldshell/yieldshell/internal/testdir"
)

// protocols: a client that initializes, and the sessionless default.
var protocols = []string{"2025-06-18", ""}

type whereIn struct {
	Optional bool `json:"optional,omitempty"`
}

type whereOut struct {
	Paths   []string `json:"paths"`
	Missing string   `json:"missing"`
	Status  string   `json:"status"`
}

// serve runs a server whose tool "where" answers with the roots For
// gives, and connects client to it at version.
func serve(t *testing.T, client *mcp.Client, version string) (*Tracker, *mcp.ClientSession) {
	t.Helper()
	tr := New(slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(tr.Close)
	srv := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "0"}, &mcp.ServerOptions{
		InitializedHandler: tr.Initialized, RootsListChangedHandler: tr.ListChanged})
	mcp.AddTool(srv, &mcp.Tool{Name: "where"}, func(ctx context.Context, req *mcp.CallToolRequest, in whereIn) (*mcp.CallToolResult, whereOut, error) {
		r, ask := tr.For(ctx, req, !in.Optional)
		if ask != nil {
			return ask, whereOut{}, nil
		}
		out := whereOut{Status: tr.Known(req).Status}
		if r != nil {
			out.Paths, out.Missing = r.Paths, r.Missing
		}
		return nil, out, nil
	})
	st, ct := mcp.NewInMemoryTransports()
	ctx := t.Context()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := client.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return tr, cs
}

func where(t *testing.T, cs *mcp.ClientSession) whereOut {
	t.Helper()
	return whereArgs(t, cs, nil)
}

func whereArgs(t *testing.T, cs *mcp.ClientSession, args map[string]any) whereOut {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "where", Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var out whereOut
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return out
}

func newClient(opts *mcp.ClientOptions) *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: "c", Version: "0"}, opts)
}

// TestTracker: the roots a client names reach the tool calls of its
// session, and follow its list_changed, at both protocols.
func TestTracker(t *testing.T) {
	a, b := mustEval(t, testdir.New(t)), mustEval(t, testdir.New(t))
	for _, v := range protocols {
		t.Run(name(v), func(t *testing.T) {
			c := newClient(nil)
			c.AddRoots(&mcp.Root{URI: fileURI(a)}, &mcp.Root{URI: "file:///"}, &mcp.Root{URI: "https://x"})
			_, cs := serve(t, c, v)
			if got := where(t, cs); !slices.Equal(got.Paths, []string{a}) || got.Status != StatusKnown {
				t.Fatalf("first roots: %+v", got)
			}
			c.AddRoots(&mcp.Root{URI: fileURI(b)})
			poll.Until(t, 5*time.Second, "the added root", func() bool { return len(where(t, cs).Paths) == 2 })
			c.RemoveRoots(fileURI(a))
			poll.Until(t, 5*time.Second, "the removed root", func() bool { return slices.Equal(where(t, cs).Paths, []string{b}) })
			c.RemoveRoots(fileURI(b), "file:///", "https://x")
			poll.Until(t, 5*time.Second, "no roots", func() bool {
				got := where(t, cs)
				return len(got.Paths) == 0 && strings.Contains(got.Missing, "no roots")
			})
		})
	}
}

// TestTrackerOptional: roots that would only choose the default cwd are
// asked of a client that initialized, not of a sessionless one.
func TestTrackerOptional(t *testing.T) {
	a := mustEval(t, testdir.New(t))
	for _, tc := range []struct {
		version string
		want    []string
		status  string
	}{
		{"2025-06-18", []string{a}, StatusKnown},
		{"", nil, StatusNotAsked},
	} {
		t.Run(name(tc.version), func(t *testing.T) {
			c := newClient(nil)
			c.AddRoots(&mcp.Root{URI: fileURI(a)})
			_, cs := serve(t, c, tc.version)
			got := whereArgs(t, cs, map[string]any{"optional": true})
			if !slices.Equal(got.Paths, tc.want) || got.Status != tc.status {
				t.Fatalf("got %+v", got)
			}
			// Once asked for (a call that needs them), they are known for
			// the session.
			where(t, cs)
			if got := whereArgs(t, cs, map[string]any{"optional": true}); !slices.Equal(got.Paths, []string{a}) {
				t.Fatalf("after a required call: %+v", got)
			}
		})
	}
}

// TestTrackerFirstCall: a call that comes as the client's initialized is
// being handled gets the roots, whichever of the two asks first (the
// answer to one ask may be dropped by the other's reset).
func TestTrackerFirstCall(t *testing.T) {
	dir := mustEval(t, testdir.New(t))
	c := newClient(nil)
	c.AddRoots(&mcp.Root{URI: fileURI(dir)})
	tr := New(slog.New(slog.NewTextHandler(io.Discard, nil)))
	defer tr.Close()
	srv := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "0"}, &mcp.ServerOptions{
		InitializedHandler: tr.Initialized, RootsListChangedHandler: tr.ListChanged})
	for range 100 {
		st, ct := mcp.NewInMemoryTransports()
		ss, err := srv.Connect(t.Context(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := c.Connect(t.Context(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
		if err != nil {
			t.Fatal(err)
		}
		r, ask := tr.For(t.Context(), &mcp.CallToolRequest{Session: ss, Params: &mcp.CallToolParamsRaw{}}, true)
		if ask != nil || r == nil || !slices.Equal(r.Paths, []string{dir}) {
			t.Fatalf("roots %+v, ask %v", r, ask)
		}
		cs.Close()
		ss.Close()
	}
}

// TestTrackerAskAgain: a roots/list that failed (over HTTP, the server's
// own request before the client's GET stream is open) is asked again by
// the next call that needs the roots, and the failure says which it was.
func TestTrackerAskAgain(t *testing.T) {
	dir := mustEval(t, testdir.New(t))
	var fails atomic.Int32
	fails.Store(2) // the ask at initialized, and the first call's
	c := newClient(nil)
	c.AddRoots(&mcp.Root{URI: fileURI(dir)})
	c.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "roots/list" && fails.Add(-1) >= 0 {
				return nil, errors.New("not now")
			}
			return next(ctx, method, req)
		}
	})
	_, cs := serve(t, c, "2025-06-18")
	if got := where(t, cs); len(got.Paths) != 0 || !strings.Contains(got.Missing, "answered roots/list with an error") || got.Status != StatusFailed {
		t.Fatalf("first call: %+v", got)
	}
	if got := where(t, cs); !slices.Equal(got.Paths, []string{dir}) || got.Status != StatusKnown {
		t.Fatalf("second call: %+v", got)
	}
}

// TestTrackerNoCapability: a client that declared no roots gets a reason.
func TestTrackerNoCapability(t *testing.T) {
	for _, v := range protocols {
		t.Run(name(v), func(t *testing.T) {
			_, cs := serve(t, newClient(&mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}}), v)
			if got := where(t, cs); len(got.Paths) != 0 || !strings.Contains(got.Missing, "declared no roots capability") || got.Status != StatusNotDeclared {
				t.Fatalf("got %+v", got)
			}
		})
	}
}

// TestTrackerClosed: a nil or closed Tracker answers without roots.
func TestTrackerClosed(t *testing.T) {
	var nilT *Tracker
	if r, ask := nilT.For(t.Context(), &mcp.CallToolRequest{}, true); r != nil || ask != nil {
		t.Errorf("nil tracker: %v %v", r, ask)
	}
	nilT.Close()
	if st := nilT.Known(nil); st.Status != StatusUnavailable {
		t.Errorf("nil tracker status %q", st.Status)
	}
}

func name(v string) string {
	if v == "" {
		return "default"
	}
	return v
}

// BenchmarkFirstRoots measures the time from the client's initialized to
// the roots being known for a client that initializes (in memory: the
// server's own cost, without a pipe or a process).
func BenchmarkFirstRoots(b *testing.B) {
	dir := b.TempDir()
	dir, _ = filepath.EvalSymlinks(dir)
	c := newClient(nil)
	c.AddRoots(&mcp.Root{URI: fileURI(dir)})
	tr := New(slog.New(slog.NewTextHandler(io.Discard, nil)))
	defer tr.Close()
	srv := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "0"}, &mcp.ServerOptions{
		InitializedHandler: tr.Initialized, RootsListChangedHandler: tr.ListChanged})
	var total time.Duration
	n := 0
	for b.Loop() {
		n++
		st, ct := mcp.NewInMemoryTransports()
		ss, err := srv.Connect(b.Context(), st, nil)
		if err != nil {
			b.Fatal(err)
		}
		cs, err := c.Connect(b.Context(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now() // initialized was sent as Connect returned
		tr.mu.Lock()
		e := tr.entryLocked(ss)
		known := e.known
		tr.mu.Unlock()
		<-known
		total += time.Since(start)
		cs.Close()
		ss.Close()
	}
	b.ReportMetric(float64(total.Microseconds())/float64(n), "µs-to-roots")
}

// BenchmarkFor is what a call pays for its session's roots once they are
// known: the lookup For does, next to the capability check alone.
func BenchmarkFor(b *testing.B) {
	dir := b.TempDir()
	c := newClient(nil)
	c.AddRoots(&mcp.Root{URI: fileURI(dir)})
	tr := New(slog.New(slog.NewTextHandler(io.Discard, nil)))
	defer tr.Close()
	srv := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "0"}, &mcp.ServerOptions{
		InitializedHandler: tr.Initialized, RootsListChangedHandler: tr.ListChanged})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(b.Context(), st, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ss.Close()
	cs, err := c.Connect(b.Context(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	req := &mcp.CallToolRequest{Session: ss, Params: &mcp.CallToolParamsRaw{}}
	if r, _ := tr.For(b.Context(), req, true); r == nil || len(r.Paths) != 1 {
		b.Fatalf("roots %v", r)
	}
	b.Run("baseline_capabilities", func(b *testing.B) {
		for b.Loop() {
			if c := req.ClientCapabilities(); c == nil {
				b.Fatal("no capabilities")
			}
		}
	})
	b.Run("for", func(b *testing.B) {
		for b.Loop() {
			if r, _ := tr.For(b.Context(), req, true); r == nil {
				b.Fatal("no roots")
			}
		}
	})
}
