//go:build unix

package main

import (
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/policy"
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
		if k == "XDG_RUNTIME_DIR" {
			return base
		}
		return ""
	}
	dir, err := runtimeDir(env)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(dir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("runtime dir %s: %v %v, want mode 0700", dir, fi.Mode(), err)
	}
	if again, err := runtimeDir(env); err != nil || again != dir {
		t.Errorf("second call: %q %v", again, err)
	}
	if err := checkPrivateDir(dir, fi, uint32(os.Getuid())+1); err == nil || !strings.Contains(err.Error(), "belongs to uid") {
		t.Errorf("a directory of another owner was accepted: %v", err)
	}

	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := runtimeDir(env); err == nil || !strings.Contains(err.Error(), "chmod 700") {
		t.Errorf("a directory open to others was accepted: %v", err)
	}

	// A symlink planted where the directory should be.
	base2 := t.TempDir()
	if err := os.Symlink(dir, filepath.Join(base2, "yieldshell")); err != nil {
		t.Fatal(err)
	}
	if _, err := runtimeDir(func(string) string { return base2 }); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("a symlink was accepted: %v", err)
	}
}

func TestLoadIdle(t *testing.T) {
	for _, c := range []struct {
		v    string
		want string
		ok   bool
	}{{"", "30m0s", true}, {"0", "0s", true}, {"1500", "1.5s", true}, {"-1", "", false}, {"soon", "", false}} {
		d, err := loadIdle(func(string) string { return c.v })
		if (err == nil) != c.ok || c.ok && d.String() != c.want {
			t.Errorf("loadIdle(%q) = %v, %v; want %s ok=%v", c.v, d, err, c.want, c.ok)
		}
		if err != nil && !strings.Contains(err.Error(), idleEnv) {
			t.Errorf("the error does not name %s: %v", idleEnv, err)
		}
	}
}

func TestEnvBool(t *testing.T) {
	for v, want := range map[string]bool{"": false, "0": false, "off": false, "1": true, "TRUE": true, " yes ": true, "on": true} {
		got, err := envBool(persistEnv, func(string) string { return v })
		if err != nil || got != want {
			t.Errorf("envBool(%q) = %v, %v; want %v", v, got, err, want)
		}
	}
	if _, err := envBool(persistEnv, func(string) string { return "maybe" }); err == nil || !strings.Contains(err.Error(), persistEnv) {
		t.Errorf("envBool(maybe): %v, want an error naming %s", err, persistEnv)
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
	a := settings(env("YIELDSHELL_MAX_PROCESSES", "7", "YIELDSHELL_TAG", "x", "HOME", "/root"))
	if len(a) != 1 || a["YIELDSHELL_MAX_PROCESSES"] == "" || a["YIELDSHELL_MAX_PROCESSES"] == "7" {
		t.Errorf("settings = %v, want only YIELDSHELL_MAX_PROCESSES, hashed", a)
	}
	b := settings(env("YIELDSHELL_MAX_PROCESSES", "8", idleEnv, "1000"))
	if got := settingsDiffer(a, b); !slices.Equal(got, []string{"YIELDSHELL_MAX_PROCESSES", idleEnv}) {
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
	cfg, err := policy.Load(func(string) string { return "" }, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a, err := newApp(cfg, slog.DiscardHandler, slog.New(slog.DiscardHandler), false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.shutdown)
	dir, err := os.MkdirTemp("", "ys")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		held []net.Conn
		err  error
	}
	served := make(chan result, 1)
	go func() {
		held, err := serveSocket(t.Context(), a, dir, 0, pw)
		served <- result{held, err}
	}()
	if ready, _ := io.ReadAll(pr); string(ready) != "ok\n" {
		t.Fatalf("ready: %q", ready)
	}
	if fi, err := os.Stat(filepath.Join(dir, socketName)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("socket mode: %v %v, want 0600", fi.Mode(), err)
	}

	raw := func(line string) welcome {
		t.Helper()
		c, err := net.Dial("unix", filepath.Join(dir, socketName))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := io.WriteString(c, line); err != nil {
			t.Fatal(err)
		}
		var w welcome
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
	if w := raw(`{"op":"status"}` + "\n"); !w.OK || w.Version != buildVersion() || w.Clients != 0 {
		t.Errorf("status: %+v", w)
	}

	// An accepted mcp hello: the connection carries MCP, and counts as a client.
	c, br, w, err := dialServer(dir, hello{Op: "mcp"})
	if err != nil || !w.OK {
		t.Fatalf("mcp hello: %+v %v", w, err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).
		Connect(t.Context(), &mcp.IOTransport{Reader: bufConn{br, c}, Writer: c}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "ps", Arguments: map[string]any{}}); err != nil {
		t.Errorf("ps over the socket: %v", err)
	}
	if w := raw(`{"op":"status"}` + "\n"); w.Clients != 1 {
		t.Errorf("status with a client connected: %+v", w)
	}
	if w := raw(`{"op":"stop","if_idle":true}` + "\n"); w.OK {
		t.Errorf("stop if idle with a client connected: %+v", w)
	}
	cs.Close()

	// stop: an answer, then the server stops serving.
	c2, br2, w, err := dialServer(dir, hello{Op: "stop"})
	if err != nil || !w.OK {
		t.Fatalf("stop: %+v %v", w, err)
	}
	defer c2.Close()
	select {
	case r := <-served:
		if r.err != nil || len(r.held) != 1 {
			t.Errorf("serveSocket: %v, %d held stop connections, want 1", r.err, len(r.held))
		}
		for _, c := range r.held {
			c.Close()
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the server still serves 10 s after stop")
	}
	// The stop request learns that the server is done by EOF.
	if n, err := br2.Read(make([]byte, 1)); n != 0 || err != io.EOF {
		t.Errorf("after stop's welcome: %d bytes, %v; want EOF", n, err)
	}
	if _, err := os.Stat(filepath.Join(dir, socketName)); !os.IsNotExist(err) {
		t.Errorf("the socket outlived the server: %v", err)
	}
}
