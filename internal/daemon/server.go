//go:build unix

package daemon

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/linerpc"
	"github.com/yieldshell/yieldshell/internal/session"
)

// Server is the persistent server: one MCP server over one Manager that
// many clients connect to over the Unix socket, one MCP session per
// connection. Set the exported fields, then call [Server.Serve] once.
type Server struct {
	MCP      *mcp.Server
	Manager  *session.Manager
	Log      *slog.Logger
	Dir      string        // the runtime directory (see [RuntimeDir])
	Idle     time.Duration // exit after this long with no process and no client; 0: never
	Version  string
	Settings map[string]string // the configuration it runs with (see [Settings])
	// Secrets are those of the environment its processes start from (see
	// [SecretPrints]); a bridge with another is refused.
	Secrets map[string]string
	// Shutdown ends every process once serving has stopped, before the
	// clients that asked for the stop learn that the server is done.
	Shutdown func()
	// HelloTimeout is how long a connection may take to say its hello
	// (default 5 s).
	HelloTimeout time.Duration

	started time.Time
	stop    context.CancelFunc // ends serving

	mu       sync.Mutex
	clients  map[net.Conn]struct{} // connections carrying MCP
	held     []net.Conn            // stop requests: closed once every process has ended
	lastBusy time.Time
	closing  bool
}

// Serve listens in s.Dir and serves until ctx is done, a stop request
// comes, or the server has been idle for s.Idle; then (and when it cannot
// listen) it calls s.Shutdown and closes the connections of the stop
// requests. ready (if not nil)
// gets "ok" once clients can connect, or the error, and is closed. The
// caller holds the instance lock (see [LockInstance]).
func (s *Server) Serve(ctx context.Context, ready io.WriteCloser) error {
	ln, err := s.listen()
	if ready != nil {
		if err != nil {
			fmt.Fprintln(ready, err)
		} else {
			fmt.Fprintln(ready, "ok")
		}
		ready.Close()
	}
	defer func() {
		s.Shutdown()
		for _, c := range s.held {
			c.Close() // server stop returns
		}
	}()
	if err != nil {
		return err
	}
	defer ln.Close() // removes the socket file
	s.serve(ctx, ln)
	return nil
}

func (s *Server) listen() (*net.UnixListener, error) {
	path := filepath.Join(s.Dir, SocketName)
	// The caller holds the instance lock, so a socket file left here is
	// from a server that died without removing it.
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("removing a stale socket: %w", err)
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("restricting %s: %w", path, err)
	}
	s.Log.Info("serving MCP on a Unix socket", "socket", path, "pid", os.Getpid(), "idle_exit", s.Idle)
	return ln, nil
}

// serve accepts until ctx is done or s.stop is called, and returns once no
// handler runs any more.
func (s *Server) serve(ctx context.Context, ln *net.UnixListener) {
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	s.started, s.stop, s.lastBusy = time.Now(), stop, time.Now()
	s.clients = map[net.Conn]struct{}{}
	var wg sync.WaitGroup
	wg.Go(func() { s.accept(ctx, ln, &wg) })
	if s.Idle > 0 {
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
}

func (s *Server) accept(ctx context.Context, ln *net.UnixListener, wg *sync.WaitGroup) {
	pause := 5 * time.Millisecond
	for {
		c, err := ln.AcceptUnix()
		if errors.Is(err, net.ErrClosed) {
			return
		}
		if err != nil {
			// Out of descriptors, say: the processes matter more
			// than this client; back off and go on.
			s.Log.Error("accepting a connection", "error", err)
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
}

// watchIdle stops the server once nothing has run and no client has been
// connected for s.Idle. It looks a few times per idle period: the exit
// time is not a promise to the minute.
func (s *Server) watchIdle(ctx context.Context) {
	t := time.NewTicker(min(max(s.Idle/4, 10*time.Millisecond), 10*time.Second))
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
			if quiet >= s.Idle {
				s.Log.Info("idle: no process and no client; exiting", "idle", quiet.Round(time.Millisecond))
				s.stop()
				return
			}
		}
	}
}

// busyLocked reports whether a client is connected, a process runs, or a
// crash restart is pending.
func (s *Server) busyLocked() bool {
	if len(s.clients) > 0 || s.Manager.Stats().Running > 0 {
		return true
	}
	for _, p := range s.Manager.List() {
		if s.Manager.WillRestart(p) {
			return true
		}
	}
	return false
}

func (s *Server) welcome() Welcome {
	return Welcome{Version: s.Version, PID: os.Getpid(), Started: s.started,
		Running: s.Manager.Stats().Running, Clients: len(s.clients), Log: filepath.Join(s.Dir, serverLogName)}
}

// handle serves one connection: the peer check, the hello, then the
// operation it asks for.
func (s *Server) handle(ctx context.Context, c *net.UnixConn) {
	if err := admitPeer(c, uint32(os.Getuid())); err != nil {
		s.Log.Warn("refused a connection", "error", err)
		c.Close()
		return
	}
	br := bufio.NewReader(c)
	h, err := readHello(c, br, cmp.Or(s.HelloTimeout, 5*time.Second))
	w := s.answer(c, h, err)
	b, _ := json.Marshal(w)
	_, werr := c.Write(append(b, '\n'))
	switch {
	case w.OK && h.Op == OpStop:
		s.Log.Info("stop requested")
		s.stop()
		return
	case w.OK && h.Op == OpMCP && werr == nil:
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

func readHello(c *net.UnixConn, br *bufio.Reader, timeout time.Duration) (Hello, error) {
	var h Hello
	_ = c.SetReadDeadline(time.Now().Add(timeout))
	defer c.SetReadDeadline(time.Time{})
	line, err := br.ReadBytes('\n')
	if err == nil {
		err = json.Unmarshal(line, &h)
	}
	return h, err
}

// answer decides the welcome for hello h (err: it could not be read) and
// registers c as what it becomes: a client, or a held stop request.
func (s *Server) answer(c net.Conn, h Hello, err error) Welcome {
	s.mu.Lock()
	defer s.mu.Unlock()
	w := s.welcome()
	switch {
	case err != nil:
		w.Error = "expected a yieldshell hello line: connect with yieldshell --persist, not directly"
	case s.closing:
		w.Error = "the server is shutting down; try again in a moment"
	case h.Op == OpStatus:
		w.OK = true
	case h.Op == OpStop && h.IfIdle && s.busyLocked():
		w.Error = "the server is busy: processes run or clients are connected"
	case h.Op == OpStop:
		w.OK = true
		s.held = append(s.held, c)
	case h.Op == OpMCP && h.Version != w.Version:
		w.Error = fmt.Sprintf("version mismatch: the server is %s, the client %s", w.Version, h.Version)
	case h.Op == OpMCP && h.Settings != nil && len(settingsDiffer(h.Settings, s.Settings)) > 0:
		// The client's policy may be stricter than the one its commands
		// would run under here: never fail open.
		w.Differ = settingsDiffer(h.Settings, s.Settings)
		w.Error = "settings differ: " + strings.Join(w.Differ, ", ")
	case h.Op == OpMCP && len(unredacted(h.Secrets, s.Secrets)) > 0:
		// Its processes would show the bridge's secret: never fail open.
		w.Unredacted = unredacted(h.Secrets, s.Secrets)
		w.Error = "the server does not redact the secrets of " + strings.Join(w.Unredacted, ", ")
	case h.Op == OpMCP:
		w.OK = true
		s.clients[c] = struct{}{}
	default:
		w.Error = fmt.Sprintf("unknown operation %q", h.Op)
	}
	return w
}

// serveMCP runs one MCP session over c until either side closes it.
func (s *Server) serveMCP(ctx context.Context, c *net.UnixConn, br *bufio.Reader) {
	conn := &Conn{c: c, r: br}
	ss, err := s.MCP.Connect(ctx, &linerpc.Transport{Reader: conn, Writer: conn}, nil)
	if err != nil {
		s.Log.Warn("starting an MCP session", "error", err)
		return
	}
	s.Log.Debug("client connected")
	_ = ss.Wait()
	s.Log.Debug("client disconnected")
}
