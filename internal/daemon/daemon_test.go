//go:build unix

package daemon

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/policy"
	"github.com/yieldshell/yieldshell/internal/session"
)

func TestCheckPeer(t *testing.T) {
	self := uint32(os.Getuid())
	if err := checkPeer(self, self); err != nil {
		t.Errorf("own uid refused: %v", err)
	}
	for _, other := range []uint32{self + 1, 0, 65534} {
		if other == self {
			continue
		}
		if err := checkPeer(other, self); err == nil || !strings.Contains(err.Error(), "refusing") {
			t.Errorf("uid %d admitted by a server of uid %d: %v", other, self, err)
		}
	}
}

// TestAdmitPeer reads real credentials over a socket pair: the same uid is
// admitted, and a server that runs as another uid refuses it.
func TestAdmitPeer(t *testing.T) {
	dir := t.TempDir()
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: filepath.Join(dir, "s"), Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := net.DialUnix("unix", nil, ln.Addr().(*net.UnixAddr))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sc, err := ln.AcceptUnix()
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	self := uint32(os.Getuid())
	if err := admitPeer(sc, self); err != nil {
		t.Errorf("same uid refused: %v", err)
	}
	if err := admitPeer(sc, self+1); err == nil {
		t.Error("a connection from another uid was admitted")
	}
}

func TestRuntimeDir(t *testing.T) {
	base := t.TempDir()
	env := func(k string) string {
		if k == RuntimeDirEnv {
			return base
		}
		return ""
	}
	dir, err := RuntimeDir(env)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(dir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("runtime dir %s: %v %v, want mode 0700", dir, fi.Mode(), err)
	}
	if again, err := RuntimeDir(env); err != nil || again != dir {
		t.Errorf("second call: %q %v", again, err)
	}
	if err := checkPrivateDir(dir, fi, uint32(os.Getuid())+1); err == nil || !strings.Contains(err.Error(), "belongs to uid") {
		t.Errorf("a directory of another owner was accepted: %v", err)
	}

	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := RuntimeDir(env); err == nil || !strings.Contains(err.Error(), "chmod 700") {
		t.Errorf("a directory open to others was accepted: %v", err)
	}

	// A symlink planted where the directory should be.
	base2 := t.TempDir()
	if err := os.Symlink(dir, filepath.Join(base2, "yieldshell")); err != nil {
		t.Fatal(err)
	}
	if _, err := RuntimeDir(func(string) string { return base2 }); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("a symlink was accepted: %v", err)
	}
}

func TestLoadIdle(t *testing.T) {
	for _, c := range []struct {
		v    string
		want string
		ok   bool
	}{{"", "30m0s", true}, {"0", "0s", true}, {"1500", "1.5s", true}, {"-1", "", false}, {"soon", "", false},
		{"9223372036854", "2562047h47m16.854s", true}, {"9227000000000", "", false}} {
		d, err := LoadIdle(func(string) string { return c.v })
		if (err == nil) != c.ok || c.ok && d.String() != c.want {
			t.Errorf("LoadIdle(%q) = %v, %v; want %s ok=%v", c.v, d, err, c.want, c.ok)
		}
		if err != nil && !strings.Contains(err.Error(), IdleEnv) {
			t.Errorf("the error does not name %s: %v", IdleEnv, err)
		}
	}
}

func TestSettingsDiffer(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	a := Settings(env("YIELDSHELL_MAX_PROCESSES", "7", "YIELDSHELL_TAG", "x", "HOME", "/root"))
	if len(a) != 1 || a["YIELDSHELL_MAX_PROCESSES"] == "" || a["YIELDSHELL_MAX_PROCESSES"] == "7" {
		t.Errorf("settings = %v, want only YIELDSHELL_MAX_PROCESSES, hashed", a)
	}
	b := Settings(env("YIELDSHELL_MAX_PROCESSES", "8", IdleEnv, "1000"))
	if got := settingsDiffer(a, b); !slices.Equal(got, []string{"YIELDSHELL_MAX_PROCESSES", IdleEnv}) {
		t.Errorf("settingsDiffer = %v", got)
	}
	if got := settingsDiffer(a, a); len(got) != 0 {
		t.Errorf("settingsDiffer(a, a) = %v", got)
	}
}

// TestHandshake runs the socket server in process and speaks the hello
// protocol to it: what each kind of hello gets, an MCP session after an
// accepted one, and stop ending the server.
func TestHandshake(t *testing.T) {
	const version = "1.2.3-test"
	dir, s := newTestServer(t, version)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve(t.Context(), pw) }()
	if ready, _ := io.ReadAll(pr); string(ready) != "ok\n" {
		t.Fatalf("ready: %q", ready)
	}
	if fi, err := os.Stat(filepath.Join(dir, SocketName)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("socket mode: %v %v, want 0600", fi.Mode(), err)
	}

	raw := func(line string) Welcome {
		t.Helper()
		c, err := net.Dial("unix", filepath.Join(dir, SocketName))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := io.WriteString(c, line); err != nil {
			t.Fatal(err)
		}
		var w Welcome
		if err := json.NewDecoder(c).Decode(&w); err != nil {
			t.Fatalf("welcome for %q: %v", line, err)
		}
		return w
	}
	for _, c := range []struct{ line, err string }{
		{"GET / HTTP/1.1\r\n\r\n", "hello line"},
		{`{"jsonrpc":"2.0","id":1,"method":"initialize"}` + "\n", "unknown operation"},
		{`{"version":"0.0.0-other","op":"mcp"}` + "\n", "version mismatch"},
	} {
		if w := raw(c.line); w.OK || !strings.Contains(w.Error, c.err) || w.PID != os.Getpid() {
			t.Errorf("hello %q: %+v, want an error about %s", c.line, w, c.err)
		}
	}
	if w := raw(`{"op":"status"}` + "\n"); !w.OK || w.Version != version || w.Clients != 0 {
		t.Errorf("status: %+v", w)
	}

	// An accepted mcp hello: the connection carries MCP, and counts as a client.
	cl := &Client{Dir: dir, Version: version, Notes: io.Discard}
	c, err := cl.Connect()
	if err != nil {
		t.Fatalf("mcp hello: %v", err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).
		Connect(t.Context(), &mcp.IOTransport{Reader: c, Writer: c}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "ping", Arguments: map[string]any{}}); err != nil {
		t.Errorf("a tool call over the socket: %v", err)
	}
	if w := raw(`{"op":"status"}` + "\n"); w.Clients != 1 {
		t.Errorf("status with a client connected: %+v", w)
	}
	if w := raw(`{"op":"stop","if_idle":true}` + "\n"); w.OK {
		t.Errorf("stop if idle with a client connected: %+v", w)
	}
	cs.Close()

	// stop: an answer, then the server stops serving.
	c2, err := cl.Dial(Hello{Op: OpStop})
	if err != nil || !c2.Welcome.OK {
		t.Fatalf("stop: %+v %v", c2, err)
	}
	defer c2.Close()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the server still serves 10 s after stop")
	}
	// The stop request learns that the server is done by EOF.
	if n, err := c2.Read(make([]byte, 1)); n != 0 || err != io.EOF {
		t.Errorf("after stop's welcome: %d bytes, %v; want EOF", n, err)
	}
	if _, err := os.Stat(filepath.Join(dir, SocketName)); !os.IsNotExist(err) {
		t.Errorf("the socket outlived the server: %v", err)
	}
}

// TestHelloTimeout: a connection that says nothing is answered with a
// refusal after the server's HelloTimeout.
func TestHelloTimeout(t *testing.T) {
	dir, s := newTestServer(t, "1")
	s.HelloTimeout = 50 * time.Millisecond
	serve(t, s)
	c, err := net.Dial("unix", filepath.Join(dir, SocketName))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	var w Welcome
	if err := json.NewDecoder(c).Decode(&w); err != nil || w.OK || !strings.Contains(w.Error, "hello line") {
		t.Errorf("welcome to a silent connection: %+v, %v", w, err)
	}
}

// serve runs s until the test ends, returning once clients can connect.
func serve(t *testing.T, s *Server) {
	t.Helper()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, pw) }()
	t.Cleanup(func() { cancel(); <-served })
	if ready, _ := io.ReadAll(pr); string(ready) != "ok\n" {
		t.Fatalf("ready: %q", ready)
	}
}

// newTestServer returns a runtime directory and a Server for it over a
// Manager and an MCP server with one tool, ping.
func newTestServer(t *testing.T, version string) (string, *Server) {
	t.Helper()
	cfg, err := policy.Load(func(string) string { return "" }, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	o, err := session.LocalOptions(log)
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := session.NewManager(cfg, o)
	if err != nil {
		t.Fatal(err)
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "t", Version: version}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "ping"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, struct{}, error) {
		return nil, struct{}{}, nil
	})
	// Socket paths are short: t.TempDir is too long on some systems.
	dir, err := os.MkdirTemp("", "ys")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	shutdown := func() { mgr.Shutdown(context.Background()) }
	t.Cleanup(shutdown)
	return dir, &Server{MCP: srv, Manager: mgr, Log: log, Dir: dir, Version: version, Shutdown: shutdown}
}

// TestBridgeRefusesOtherSettings: a bridge whose settings differ from a
// busy server's is refused, naming what differs and the way on, instead of
// running its commands under the server's (perhaps looser) policy; one with
// the same settings, and ps-like connections without any, are served.
func TestBridgeRefusesOtherSettings(t *testing.T) {
	dir, s := newTestServer(t, "1")
	s.Settings = map[string]string{"YIELDSHELL_ALLOWED_CWDS": "aaaa"}
	serve(t, s)
	// A person's ps: no settings, no check; it also makes the server busy.
	viewer, err := (&Client{Dir: dir, Version: "1", Notes: io.Discard}).Connect()
	if err != nil {
		t.Fatalf("a connection without settings: %v", err)
	}
	defer viewer.Close()

	stricter := &Client{Dir: dir, Version: "1", Notes: io.Discard, Settings: map[string]string{"YIELDSHELL_ALLOWED_CWDS": "bbbb"}}
	if c, err := stricter.ConnectOrStart(); err == nil {
		c.Close()
		t.Error("a bridge with other settings was connected")
	} else if !strings.Contains(err.Error(), "YIELDSHELL_ALLOWED_CWDS") || !strings.Contains(err.Error(), "yieldshell server stop") {
		t.Errorf("the refusal does not say what differs and what to do: %v", err)
	}
	same := &Client{Dir: dir, Version: "1", Notes: io.Discard, Settings: s.Settings}
	c, err := same.ConnectOrStart()
	if err != nil {
		t.Fatalf("a bridge with the same settings: %v", err)
	}
	c.Close()
}

// A bridge's secret the server does not hold, by value, is named; one it
// holds under another name is not; the prints never carry the value.
func TestUnredactedNamesTheBridgesUnknownSecrets(t *testing.T) {
	cfg := &policy.Config{Rules: policy.Rules{RedactEnv: regexp.MustCompile(`TOKEN|KEY`)}}
	server := SecretPrints(cfg, []string{"API_TOKEN=server-token-1234", "PLAIN=visible-value-1234"})
	bridge := SecretPrints(cfg, []string{"API_TOKEN=server-token-1234", "OTHER_KEY=server-token-1234x", "NEW_TOKEN=bridge-only-5678", "SHORT_KEY=abc"})
	if got, want := unredacted(bridge, server), []string{"NEW_TOKEN", "OTHER_KEY"}; !slices.Equal(got, want) {
		t.Errorf("unredacted = %v, want %v", got, want)
	}
	alias := SecretPrints(cfg, []string{"RENAMED_KEY=server-token-1234"})
	if got := unredacted(alias, server); len(got) != 0 {
		t.Errorf("a value the server redacts under another name: %v", got)
	}
	if got := unredacted(bridge, nil); len(got) != 3 {
		t.Errorf("a server without secrets: %v, want all three named", got)
	}
	for _, p := range bridge {
		if strings.Contains(p, "bridge-only") || strings.Contains(p, "server-token") {
			t.Errorf("a print carries the value: %q", p)
		}
	}
}

// TestRuntimeDirIgnoresEnvironment: without RuntimeDirEnv, the directory
// is the same whatever XDG_RUNTIME_DIR and TMPDIR say (issue 41 item 4).
func TestRuntimeDirIgnoresEnvironment(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	base := t.TempDir()
	with, err := RuntimeDir(func(k string) string {
		if k == "XDG_RUNTIME_DIR" {
			return base
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	without, err := RuntimeDir(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if with != without || strings.HasPrefix(with, base) {
		t.Errorf("XDG_RUNTIME_DIR=%s: %s; without it: %s", base, with, without)
	}
}
