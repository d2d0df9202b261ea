//go:build unix

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sys/unix"

	"github.com/yieldshell/yieldshell/policy"
)

// idleEnv is how long the persistent server stays up with no running
// process and no client before it exits by itself.
const (
	idleEnv     = "YIELDSHELL_SERVER_IDLE_MS"
	defaultIdle = 30 * time.Minute
)

// Files in the runtime directory.
const (
	socketName    = "server.sock"
	instanceLock  = "server.lock" // held by the running server for its whole life
	startLock     = "start.lock"  // held while one client starts the server
	serverLogName = "server.log"
	logRotateSize = 10 << 20
)

// hello is the first line a client sends on the socket; welcome is the
// server's one-line answer. Both are JSON. After an accepted "mcp" hello,
// the connection carries MCP (newline-delimited JSON-RPC) unchanged. The
// two structs are the contract between versions: only add fields.
type hello struct {
	Version string `json:"version"`
	Op      string `json:"op"`                // mcp, status or stop
	IfIdle  bool   `json:"if_idle,omitempty"` // stop: only if nothing runs and no client is connected
}

type welcome struct {
	OK      bool      `json:"ok"`
	Error   string    `json:"error,omitempty"`
	Version string    `json:"version"`
	PID     int       `json:"pid"`
	Started time.Time `json:"started"`
	Running int       `json:"running"` // running processes
	Clients int       `json:"clients"` // connected MCP clients, the asker excluded
	Log     string    `json:"log"`
	// Settings are the server's configuration (see settings), with an
	// accepted mcp hello.
	Settings map[string]string `json:"settings,omitempty"`
}

// loadIdle reads YIELDSHELL_SERVER_IDLE_MS (0: never exit by itself).
func loadIdle(getenv func(string) string) (time.Duration, error) {
	v := getenv(idleEnv)
	if v == "" {
		return defaultIdle, nil
	}
	ms, err := strconv.Atoi(v)
	if err != nil || ms < 0 {
		return 0, fmt.Errorf("invalid %s %q: use a number of milliseconds, 0 or more (0: never exit when idle)", idleEnv, v)
	}
	return time.Duration(ms) * time.Millisecond, nil
}

// lockFile takes an exclusive flock on path, blocking until it is free.
// The lock lasts until the returned file is closed or the process exits.
func lockFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening lock: %w", err)
	}
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	return f, nil
}

// sockServer is the persistent server: one app (one Manager, one MCP
// server) that many clients connect to over the Unix socket, one MCP
// session per connection.
type sockServer struct {
	a       *app
	dir     string
	uid     uint32
	idle    time.Duration
	started time.Time
	stop    context.CancelFunc // ends serving
	// settings are the configuration the server started with.
	settings map[string]string

	mu       sync.Mutex
	clients  map[net.Conn]struct{} // connections carrying MCP
	held     []net.Conn            // stop requests: closed once every process has ended
	lastBusy time.Time
	closing  bool
}

// serveSocket listens in dir and serves until ctx is done, a stop request
// comes, or the server has been idle for idle. ready (if not nil) gets
// "ok" once clients can connect, or the error. The caller shuts the app
// down afterwards, ending every process, and then closes the connections
// of the stop requests it returns: that tells them the server is done.
func serveSocket(ctx context.Context, a *app, dir string, idle time.Duration, ready io.WriteCloser) ([]net.Conn, error) {
	fail := func(err error) ([]net.Conn, error) {
		if ready != nil {
			fmt.Fprintln(ready, err)
			ready.Close()
		}
		return nil, err
	}
	path := filepath.Join(dir, socketName)
	// The caller holds the instance lock, so a socket file left here is
	// from a server that died without removing it.
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fail(fmt.Errorf("removing a stale socket: %w", err))
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return fail(fmt.Errorf("listening on %s: %w", path, err))
	}
	defer ln.Close() // removes the socket file
	if err := os.Chmod(path, 0o600); err != nil {
		return fail(fmt.Errorf("restricting %s: %w", path, err))
	}
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	s := &sockServer{a: a, dir: dir, uid: uint32(os.Getuid()), idle: idle, started: time.Now(),
		stop: stop, clients: map[net.Conn]struct{}{}, lastBusy: time.Now(), settings: settings(os.Getenv)}
	a.log.Info("serving MCP on a Unix socket", "socket", path, "pid", os.Getpid(), "idle_exit", idle)
	if ready != nil {
		fmt.Fprintln(ready, "ok")
		ready.Close()
	}

	var wg sync.WaitGroup
	wg.Go(func() {
		pause := 5 * time.Millisecond
		for {
			c, err := ln.AcceptUnix()
			if errors.Is(err, net.ErrClosed) {
				return
			}
			if err != nil {
				// Out of descriptors, say: the processes matter more
				// than this client; back off and go on.
				a.log.Error("accepting a connection", "error", err)
				t := time.NewTimer(pause)
				select {
				case <-ctx.Done():
				case <-t.C:
				}
				t.Stop()
				pause = min(2*pause, time.Second)
				continue
			}
			pause = 5 * time.Millisecond
			wg.Go(func() { s.handle(ctx, c) })
		}
	})
	if idle > 0 {
		wg.Go(func() { s.watchIdle(ctx) })
	}
	<-ctx.Done()
	s.mu.Lock()
	s.closing = true
	for c := range s.clients {
		c.Close() // ends its MCP session
	}
	s.mu.Unlock()
	ln.Close()
	wg.Wait()
	return s.held, nil // no handler runs any more
}

// watchIdle stops the server once nothing has run and no client has been
// connected for s.idle. It looks a few times per idle period: the exit
// time is not a promise to the minute.
func (s *sockServer) watchIdle(ctx context.Context) {
	t := time.NewTicker(min(max(s.idle/4, 10*time.Millisecond), 10*time.Second))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			s.mu.Lock()
			if s.busyLocked() {
				s.lastBusy = now
			}
			quiet := now.Sub(s.lastBusy)
			s.mu.Unlock()
			if quiet >= s.idle {
				s.a.log.Info("idle: no process and no client; exiting", "idle", quiet.Round(time.Millisecond))
				s.stop()
				return
			}
		}
	}
}

// busyLocked reports whether a client is connected, a process runs, or a
// crash restart is pending.
func (s *sockServer) busyLocked() bool {
	if len(s.clients) > 0 || s.a.mgr.Stats().Running > 0 {
		return true
	}
	for _, p := range s.a.mgr.List() {
		if s.a.mgr.WillRestart(p) {
			return true
		}
	}
	return false
}

func (s *sockServer) welcome() welcome {
	return welcome{Version: buildVersion(), PID: os.Getpid(), Started: s.started,
		Running: s.a.mgr.Stats().Running, Clients: len(s.clients), Log: filepath.Join(s.dir, serverLogName)}
}

// handle serves one connection: the peer check, the hello, then the
// operation it asks for.
func (s *sockServer) handle(ctx context.Context, c *net.UnixConn) {
	if err := admitPeer(c, s.uid); err != nil {
		s.a.log.Warn("refused a connection", "error", err)
		c.Close()
		return
	}
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	br := bufio.NewReader(c)
	var h hello
	line, err := br.ReadBytes('\n')
	if err == nil {
		err = json.Unmarshal(line, &h)
	}
	_ = c.SetReadDeadline(time.Time{})
	s.mu.Lock()
	w := s.welcome()
	switch {
	case err != nil:
		w.Error = "expected a yieldshell hello line: connect with yieldshell --persist, not directly"
	case s.closing:
		w.Error = "the server is shutting down; try again in a moment"
	case h.Op == "status":
		w.OK = true
	case h.Op == "stop" && h.IfIdle && s.busyLocked():
		w.Error = "the server is busy: processes run or clients are connected"
	case h.Op == "stop":
		w.OK = true
		s.held = append(s.held, c)
	case h.Op == "mcp" && h.Version != w.Version:
		w.Error = fmt.Sprintf("version mismatch: the server is %s, the client %s", w.Version, h.Version)
	case h.Op == "mcp":
		w.OK, w.Settings = true, s.settings
		s.clients[c] = struct{}{}
	default:
		w.Error = fmt.Sprintf("unknown operation %q", h.Op)
	}
	s.mu.Unlock()
	b, _ := json.Marshal(w)
	_, werr := c.Write(append(b, '\n'))
	switch {
	case w.OK && h.Op == "stop":
		s.a.log.Info("stop requested")
		s.stop()
		return
	case w.OK && h.Op == "mcp" && werr == nil:
		s.serveMCP(ctx, c, br)
	}
	s.mu.Lock()
	if _, ok := s.clients[c]; ok {
		delete(s.clients, c)
		s.lastBusy = time.Now()
	}
	s.mu.Unlock()
	c.Close()
}

// serveMCP runs one MCP session over c until either side closes it.
func (s *sockServer) serveMCP(ctx context.Context, c *net.UnixConn, br *bufio.Reader) {
	ss, err := s.a.srv.Connect(ctx, &mcp.IOTransport{Reader: bufConn{br, c}, Writer: c}, nil)
	if err != nil {
		s.a.log.Warn("starting an MCP session", "error", err)
		return
	}
	s.a.log.Debug("client connected")
	_ = ss.Wait()
	s.a.log.Debug("client disconnected")
}

// bufConn reads through the buffer that read the hello line, so no byte
// that followed it is lost, and closes the connection.
type bufConn struct {
	r *bufio.Reader
	c net.Conn
}

func (b bufConn) Read(p []byte) (int, error) { return b.r.Read(p) }
func (b bufConn) Close() error               { return b.c.Close() }

// runServer is `yieldshell server run`: the persistent server in the
// foreground. readyFD, when not 0, is a pipe to the starter.
func runServer(ctx context.Context, readyFD int, l loggers, getenv func(string) string, stderr io.Writer) int {
	var ready *os.File
	if readyFD > 0 {
		ready = os.NewFile(uintptr(readyFD), "ready")
	}
	fail := func(code int, err error) int {
		fmt.Fprintln(stderr, "yieldshell server:", err)
		if ready != nil {
			fmt.Fprintln(ready, err)
			ready.Close()
		}
		return code
	}
	idle, err := loadIdle(getenv)
	if err != nil {
		return fail(2, err)
	}
	dir, err := runtimeDir(getenv)
	if err != nil {
		return fail(1, err)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return fail(1, fmt.Errorf("getting working directory: %w", err))
	}
	cfg, err := policy.Load(getenv, cwd)
	if err != nil {
		return fail(2, fmt.Errorf("invalid configuration: %w", err))
	}
	// One server per user: a second one waits here until the first has
	// gone (a stop in progress), then takes over.
	lock, err := lockFile(filepath.Join(dir, instanceLock))
	if err != nil {
		return fail(1, err)
	}
	defer lock.Close()
	a, err := newApp(cfg, l.stderr, l.sdk, true)
	if err != nil {
		return fail(1, err)
	}
	for _, w := range cfg.Warnings() {
		a.log.Warn(w)
	}
	var rw io.WriteCloser
	if ready != nil {
		rw = ready
	}
	held, err := serveSocket(ctx, a, dir, idle, rw)
	a.log.Info("ending every process")
	a.shutdown()
	for _, c := range held {
		c.Close() // server stop returns
	}
	if err != nil {
		a.log.Error("serving", "error", err)
		return 1
	}
	a.log.Info("exiting")
	return 0
}
