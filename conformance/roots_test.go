package conformance

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The client's roots (issue 34 item 5): the first root is the default cwd
// unless the operator chose one, YIELDSHELL_ALLOWED_CWDS=roots confines
// commands to them, ps says which are in force and whose they are.

// rootDirs makes directories a, b (a's sibling) and outside, resolved,
// and a link inside a that points outside.
func rootDirs(t *testing.T) (a, b, outside, escape string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the roots tests run pwd and make symlinks")
	}
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a, b, outside = filepath.Join(base, "a"), filepath.Join(base, "b"), filepath.Join(base, "outside")
	for _, d := range []string{a, filepath.Join(a, "sub"), b, outside} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	escape = filepath.Join(a, "escape")
	if err := os.Symlink(outside, escape); err != nil {
		t.Fatal(err)
	}
	return a, b, outside, escape
}

func rootURI(dir string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(dir)}).String()
}

// rootsClient is a client that names dirs as its roots (the SDK lists
// them sorted by URI).
func rootsClient(dirs ...string) *mcp.Client {
	c := mcp.NewClient(&mcp.Implementation{Name: "conformance", Version: "0"}, nil)
	for _, d := range dirs {
		c.AddRoots(&mcp.Root{URI: rootURI(d), Name: filepath.Base(d)})
	}
	return c
}

func startWith(t *testing.T, c *mcp.Client, version string, env ...string) *server {
	t.Helper()
	s, err := connectClient(t, c, version, env...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (s *server) pwd(args map[string]any) string {
	s.t.Helper()
	r := s.exec("pwd", args)
	if r.str("status") != "completed" {
		return "refused: " + r.str("error")
	}
	return strings.TrimSpace(r.str("stdout"))
}

// psServer is ps's server section.
func (s *server) psServer() map[string]any {
	s.t.Helper()
	m, _ := s.call("ps", nil).m["server"].(map[string]any)
	return m
}

// pathList is a decoded JSON array of strings (nil when absent).
func pathList(v any) []string {
	l, _ := v.([]any)
	var out []string
	for _, x := range l {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

// TestRootsDefaultCwd: with no YIELDSHELL_DEFAULT_CWD, a command without
// cwd runs in the client's first root, and in the new first root after
// the client changes them (roots/list_changed). On the sessionless
// protocol roots are asked for only where they confine (TestRootsConfine):
// the default stays the server's directory.
func TestRootsDefaultCwd(t *testing.T) {
	a, b, _, _ := rootDirs(t)
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	t.Run("default", func(t *testing.T) {
		s := startWith(t, rootsClient(a, b), "")
		if got := s.pwd(nil); got != wd {
			t.Errorf("pwd = %q, want the server's directory %q", got, wd)
		}
		if ps := s.psServer(); ps["default_cwd_from"] != "server_cwd" || ps["client_roots_status"] != "not_asked" {
			t.Errorf("ps server: %v", ps)
		}
	})
	for _, v := range []string{"2025-06-18", "2025-11-25"} {
		t.Run(v, func(t *testing.T) {
			c := rootsClient(a, b)
			s := startWith(t, c, v)
			if got := s.pwd(nil); got != a {
				t.Fatalf("pwd = %q, want the first root %q", got, a)
			}
			if got := s.pwd(map[string]any{"cwd": "sub"}); got != filepath.Join(a, "sub") {
				t.Errorf("relative cwd: pwd = %q", got)
			}
			ps := s.psServer()
			if ps["default_cwd"] != a || ps["default_cwd_from"] != "client_roots" || ps["allowed_cwds_from"] != "none" ||
				!slices.Equal(pathList(ps["client_roots"]), []string{a, b}) || ps["client_roots_status"] != "known" {
				t.Errorf("ps server: %v", ps)
			}
			c.RemoveRoots(rootURI(a))
			eventually(t, 10*time.Second, "the default cwd to follow list_changed", func() bool { return s.pwd(nil) == b })
		})
	}
}

// TestRootsConfine: YIELDSHELL_ALLOWED_CWDS=roots admits a cwd inside a
// root and refuses one outside, through "..", or through a link inside a
// root that points outside; removing a root takes its directories away.
func TestRootsConfine(t *testing.T) {
	a, b, outside, escape := rootDirs(t)
	for _, v := range protocols {
		t.Run(protoName(v), func(t *testing.T) {
			c := rootsClient(a, b)
			s := startWith(t, c, v, "YIELDSHELL_ALLOWED_CWDS=roots")
			if got := s.pwd(nil); got != a {
				t.Errorf("pwd = %q, want the first root %q", got, a)
			}
			for _, ok := range []string{a, filepath.Join(a, "sub"), b} {
				if got := s.pwd(map[string]any{"cwd": ok}); got != ok {
					t.Errorf("cwd %s: %s", ok, got)
				}
			}
			for _, bad := range []string{outside, escape, "..", filepath.Join(a, "..", "outside"), "/"} {
				r := s.exec("pwd", map[string]any{"cwd": bad}).mustStatus(t, "failed_to_start")
				if r.str("rule") != "cwd" || !strings.Contains(r.str("error"), "not under the client's roots") {
					t.Errorf("cwd %s: %s", bad, r.text)
				}
			}
			ps := s.psServer()
			if ps["allowed_cwds_from"] != "client_roots" || !slices.Equal(pathList(ps["allowed_cwds"]), []string{a, b}) {
				t.Errorf("ps server: %v", ps)
			}
			c.RemoveRoots(rootURI(a))
			eventually(t, 10*time.Second, "a to be taken away", func() bool {
				return strings.Contains(s.pwd(map[string]any{"cwd": a}), "not under the client's roots")
			})
			if got := s.pwd(nil); got != b {
				t.Errorf("after list_changed: pwd = %q, want the new first root %q", got, b)
			}
		})
	}
}

// TestRootsFailClosed: confined to roots, a client that names none, or
// none that may be roots, has every command refused, and is told why.
func TestRootsFailClosed(t *testing.T) {
	a, _, _, _ := rootDirs(t)
	noCaps := &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}}
	hostile := mcp.NewClient(&mcp.Implementation{Name: "conformance", Version: "0"}, nil)
	hostile.AddRoots(&mcp.Root{URI: "file:///"}, &mcp.Root{URI: "file:relative"}, &mcp.Root{URI: "https://example.com" + a},
		&mcp.Root{URI: "file://" + a + "/../.."}, &mcp.Root{URI: "file://elsewhere" + a}, &mcp.Root{URI: rootURI(a + "-missing")})
	cases := []struct {
		name   string
		client func() *mcp.Client
		why    string
		status string
	}{
		{"no roots capability", func() *mcp.Client {
			return mcp.NewClient(&mcp.Implementation{Name: "conformance", Version: "0"}, noCaps)
		}, "declared no roots capability", "not_declared"},
		{"no roots", func() *mcp.Client { return rootsClient() }, "answered roots/list with no roots", "known"},
		{"only roots that may not be", func() *mcp.Client { return hostile }, "none of the 6 roots", "known"},
	}
	for _, tc := range cases {
		for _, v := range protocols {
			t.Run(tc.name+"/"+protoName(v), func(t *testing.T) {
				s := startWith(t, tc.client(), v, "YIELDSHELL_ALLOWED_CWDS=roots")
				for _, cwd := range []string{"", a, "/"} {
					r := s.exec("pwd", map[string]any{"cwd": cwd}).mustStatus(t, "failed_to_start")
					if e := r.str("error"); r.str("rule") != "cwd" || !strings.Contains(e, "no directory is allowed") ||
						!strings.Contains(e, tc.why) || !strings.Contains(e, "YIELDSHELL_ALLOWED_CWDS=roots") {
						t.Errorf("cwd %q: %s", cwd, r.text)
					}
				}
				if ps := s.psServer(); ps["client_roots_status"] != tc.status || ps["allowed_cwds_from"] != "client_roots" || ps["allowed_cwds"] != nil {
					t.Errorf("ps server: %v", ps)
				}
			})
		}
	}
}

// TestRootsUnknownNoted: a client whose roots/list fails, or names no
// roots, gets its commands run in the server's directory (nothing
// confines them to roots), and the answer says so and why, rather than
// letting the server's cwd stand in silently (issue 41 item 1).
func TestRootsUnknownNoted(t *testing.T) {
	failing := rootsClient(t.TempDir())
	failing.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "roots/list" {
				return nil, errors.New("no roots today")
			}
			return next(ctx, method, req)
		}
	})
	for _, tc := range []struct {
		name   string
		client *mcp.Client
		why    string
	}{
		{"failed", failing, "answered roots/list with an error"},
		{"empty", rootsClient(), "answered roots/list with no roots"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := startWith(t, tc.client, "2025-06-18")
			r := s.exec("pwd", nil).mustStatus(t, "completed")
			notes := fmt.Sprint(r.m["notes"])
			if !strings.Contains(notes, "roots were not used: the client "+tc.why) || !strings.Contains(notes, "Pass cwd") {
				t.Errorf("notes: %s", notes)
			}
		})
	}
	// A client with no roots capability chose not to say: nothing to note.
	s := startWith(t, mcp.NewClient(&mcp.Implementation{Name: "conformance", Version: "0"},
		&mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}}), "2025-06-18")
	if r := s.exec("pwd", nil).mustStatus(t, "completed"); r.m["notes"] != nil {
		t.Errorf("notes without the roots capability: %v", r.m["notes"])
	}
}

// TestRootsOperatorWins: an explicit YIELDSHELL_DEFAULT_CWD stays the
// default, and explicit paths in YIELDSHELL_ALLOWED_CWDS are the roots in
// force, whatever the client names.
func TestRootsOperatorWins(t *testing.T) {
	a, b, outside, _ := rootDirs(t)
	for _, v := range protocols {
		t.Run(protoName(v), func(t *testing.T) {
			s := startWith(t, rootsClient(a), v, "YIELDSHELL_DEFAULT_CWD="+outside)
			if got := s.pwd(nil); got != outside {
				t.Errorf("explicit default: pwd = %q, want %q", got, outside)
			}
			if ps := s.psServer(); ps["default_cwd_from"] != "operator" || ps["default_cwd"] != outside {
				t.Errorf("ps server: %v", ps)
			}

			s = startWith(t, rootsClient(a, b), v, "YIELDSHELL_ALLOWED_CWDS="+b)
			if got := s.pwd(nil); v != "" && got != b { // sessionless: not asked, as roots do not confine
				t.Errorf("explicit paths: pwd = %q, want b, the first root inside them", got)
			}
			r := s.exec("pwd", map[string]any{"cwd": a}).mustStatus(t, "failed_to_start")
			if !strings.Contains(r.str("error"), "not under allowed roots (YIELDSHELL_ALLOWED_CWDS)") {
				t.Errorf("a client root outside the operator's: %s", r.text)
			}
			if ps := s.psServer(); ps["allowed_cwds_from"] != "operator" || !slices.Equal(pathList(ps["allowed_cwds"]), []string{b}) {
				t.Errorf("ps server: %v", ps)
			}

			s = startWith(t, rootsClient(a), v, "YIELDSHELL_DEFAULT_CWD="+b, "YIELDSHELL_ALLOWED_CWDS="+b)
			if ps := s.psServer(); ps["client_roots_status"] != "unused" || ps["client_roots"] != nil {
				t.Errorf("both set: ps server: %v", ps)
			}
		})
	}
}

// TestRootsShellYeah: start_shell is confined the same way.
func TestRootsShellYeah(t *testing.T) {
	a, _, outside, escape := rootDirs(t)
	for _, v := range protocols {
		t.Run(protoName(v), func(t *testing.T) {
			s := startWith(t, rootsClient(a), v, "YIELDSHELL_ALLOWED_CWDS=roots", "YIELDSHELL_TOOLSET=shell-yeah")
			for _, bad := range []string{outside, escape} {
				r := s.call("start_shell", map[string]any{"command": "sleep", "args": []string{"30"}, "workingDirectory": bad})
				if !r.isError || r.str("rule") != "cwd" || !strings.Contains(r.str("error"), "not under the client's roots") {
					t.Errorf("workingDirectory %s: %s", bad, r.text)
				}
			}
			r := s.call("start_shell", map[string]any{"command": "sleep", "args": []string{"30"}, "workingDirectory": a, "label": "in-root"})
			if r.isError {
				t.Fatalf("inside the root: %s", r.text)
			}
			if h := s.call("health_check", nil); h.str("allowed_cwds_from") != "client_roots" || !slices.Equal(pathList(h.m["client_roots"]), []string{a}) {
				t.Errorf("health_check: %s", h.text)
			}
		})
	}
}

// TestRootsHTTPSessions: over --http each client session has its own
// roots, at both protocols (on the sessionless one, each request asks
// for them: the server is confined to roots).
func TestRootsHTTPSessions(t *testing.T) {
	a, b, _, _ := rootDirs(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	h := startHTTP(t, ctx, "YIELDSHELL_ALLOWED_CWDS=roots")
	for _, v := range protocols {
		t.Run(protoName(v), func(t *testing.T) {
			var ss [2]*server
			for i, dir := range []string{a, b} {
				tr := &mcp.StreamableClientTransport{Endpoint: h.url, HTTPClient: &http.Client{Transport: bearer(httpToken)}}
				cctx, ccancel := context.WithTimeout(t.Context(), 10*time.Second)
				cs, err := rootsClient(dir).Connect(cctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: v})
				ccancel()
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { cs.Close() })
				ss[i] = &server{t: t, cs: cs}
			}
			for range 2 { // interleaved
				if got := ss[0].pwd(nil); got != a {
					t.Errorf("session 1: pwd = %q, want %q", got, a)
				}
				if got := ss[1].pwd(nil); got != b {
					t.Errorf("session 2: pwd = %q, want %q", got, b)
				}
				if got := ss[0].pwd(map[string]any{"cwd": b}); !strings.Contains(got, "not under the client's roots") {
					t.Errorf("session 1 in session 2's root: %s", got)
				}
			}
		})
	}
}

// BenchmarkRootsAsked measures, over stdio, the time from the client's
// notifications/initialized (sent as Connect returns) to its answer to the
// server's roots/list leaving the client: the server's part of "roots
// known" (resolving the answer then takes microseconds:
// internal/roots' BenchmarkFirstRoots measures it all in memory).
func BenchmarkRootsAsked(b *testing.B) {
	dir := b.TempDir()
	var total time.Duration
	n := 0
	for b.Loop() {
		n++
		answered := make(chan time.Time, 1)
		c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil)
		c.AddRoots(&mcp.Root{URI: rootURI(dir)})
		c.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				res, err := next(ctx, method, req)
				if method == "roots/list" {
					select {
					case answered <- time.Now():
					default:
					}
				}
				return res, err
			}
		})
		b.StopTimer()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(binPath)}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
		cancel()
		if err != nil {
			b.Fatal(err)
		}
		initialized := time.Now()
		select {
		case at := <-answered:
			total += at.Sub(initialized)
		case <-time.After(10 * time.Second):
			b.Fatal("the server did not ask for roots")
		}
		_ = cs.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(total.Microseconds())/float64(n), "µs-to-answer")
}

// TestRootsAskApproval: with YIELDSHELL_ASK, a cwd outside the client's
// roots is put to the user like one outside the operator's paths; allowed,
// it runs there once.
func TestRootsAskApproval(t *testing.T) {
	a, _, outside, _ := rootDirs(t)
	for _, v := range protocols {
		t.Run(protoName(v), func(t *testing.T) {
			var asked atomic.Int32
			var message atomic.Value
			c := mcp.NewClient(&mcp.Implementation{Name: "conformance", Version: "0"}, &mcp.ClientOptions{
				Capabilities: &mcp.ClientCapabilities{
					RootsV2:     &mcp.RootCapabilities{ListChanged: true},
					Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}},
				ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					asked.Add(1)
					message.Store(req.Params.Message)
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "allow once"}}, nil
				},
			})
			c.AddRoots(&mcp.Root{URI: rootURI(a)})
			s := startWith(t, c, v, "YIELDSHELL_ASK=1", "YIELDSHELL_ALLOWED_CWDS=roots")
			if got := s.pwd(map[string]any{"cwd": outside}); got != outside || asked.Load() != 1 {
				t.Fatalf("allowed once (asked %d): pwd = %q", asked.Load(), got)
			}
			if msg, _ := message.Load().(string); !strings.Contains(msg, "not under the client's roots") || !strings.Contains(msg, outside) {
				t.Errorf("the question: %q", msg)
			}
			if got := s.pwd(nil); got != a || asked.Load() != 1 {
				t.Errorf("inside the root (asked %d): pwd = %q", asked.Load(), got)
			}
		})
	}
}
