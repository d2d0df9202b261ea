package httpserve

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/policy"
)

// The environment variables of --http: the address, the bearer token, and
// the caps on what its clients can hold.
const (
	AddrEnv        = "YIELDSHELL_HTTP_ADDR"
	TokenEnv       = "YIELDSHELL_HTTP_TOKEN"
	TokenFileEnv   = "YIELDSHELL_HTTP_TOKEN_FILE"
	MaxConnsEnv    = "YIELDSHELL_HTTP_MAX_CONNECTIONS"
	MaxSessionsEnv = "YIELDSHELL_HTTP_MAX_SESSIONS"
)

// Defaults for the caps, kept well under a 1024-descriptor limit.
const (
	DefaultMaxConns     = 256
	DefaultMaxAnonymous = 128
	DefaultMaxSessions  = 64
)

// SessionlessProtocol is the first protocol version without sessions
// (versions are dates, so they compare as strings).
const SessionlessProtocol = "2026-07-28"

// Path is where the MCP endpoint is served.
const Path = "/mcp"

// Vars are the environment variables of --http, for the usage text.
func Vars() []policy.Var {
	return []policy.Var{
		{Name: AddrEnv, Help: "Serve MCP over streamable HTTP on this address when --http is not given; healthcheck asks it."},
		{Name: TokenEnv, Help: "Bearer token for --http (at least 16 characters)."},
		{Name: TokenFileEnv, Help: "File holding the bearer token for --http; wins over " + TokenEnv + "."},
		{Name: MaxConnsEnv, Default: strconv.Itoa(DefaultMaxConns),
			Help: "--http: connections with the token open at once; a request on another waits for one to close."},
		{Name: MaxSessionsEnv, Default: strconv.Itoa(DefaultMaxSessions),
			Help: "--http: MCP sessions open at once; a request for another gets 503."},
	}
}

// Config is what --http needs, checked before anything starts.
type Config struct {
	Addr      string // host:port to listen on
	Token     string
	Generated bool // no token was configured: one was made for this run
	// TokenWarning says why the token file may not be secret (see
	// readTokenFile); logged once the server's log is up.
	TokenWarning string

	// MaxConns caps the connections that showed the token; a request
	// with the token that finds them taken waits for one to close.
	MaxConns int
	// MaxAnonymous caps the connections that did not (yet): the next one
	// sheds the oldest (see guard.go).
	MaxAnonymous int
	MaxSessions  int // MCP sessions at once; more are refused with 503
	// ReadHeader bounds a request's headers (and a new connection's
	// silence), Read its body, Idle a kept-alive connection's silence.
	ReadHeader, Read, Idle time.Duration
	// SessionGrace is how long an MCP session with no connection open
	// keeps its slot (gone.go); 0 means DefaultSessionGrace.
	SessionGrace time.Duration
}

// LoadConfig resolves the listening address and the bearer token. An
// address without a host binds to loopback; a non-loopback address needs a
// configured token. On loopback without one, a random token is generated
// and printed, so the endpoint is never open to other local users.
func LoadConfig(addr, tokenFile string, getenv func(string) string) (*Config, error) {
	if !strings.Contains(addr, ":") {
		addr = ":" + addr // a bare port
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("invalid --http address %q: %w; use PORT, HOST:PORT or [IPv6]:PORT", addr, err)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	hc := &Config{Addr: net.JoinHostPort(host, port), MaxAnonymous: DefaultMaxAnonymous,
		ReadHeader: 5 * time.Second, Read: 30 * time.Second, Idle: 60 * time.Second}
	if hc.MaxConns, err = positiveInt(getenv, MaxConnsEnv, DefaultMaxConns); err != nil {
		return nil, err
	}
	if hc.MaxSessions, err = positiveInt(getenv, MaxSessionsEnv, DefaultMaxSessions); err != nil {
		return nil, err
	}
	if tokenFile == "" {
		tokenFile = getenv(TokenFileEnv)
	}
	switch {
	case tokenFile != "":
		tf, err := readTokenFile(tokenFile, currentUser())
		if err != nil {
			return nil, err
		}
		hc.Token, hc.TokenWarning = tf.token, tf.warning
	case getenv(TokenEnv) != "":
		hc.Token = strings.TrimSpace(getenv(TokenEnv))
	case !isLoopback(host):
		return nil, fmt.Errorf("--http %s listens beyond this machine and needs a bearer token: set %s or %s, or pass --token-file", hc.Addr, TokenEnv, TokenFileEnv)
	default:
		hc.Token, hc.Generated = rand.Text(), true
	}
	if len(hc.Token) < 16 {
		return nil, errors.New("the bearer token is too short: use at least 16 characters (e.g. openssl rand -hex 32)")
	}
	return hc, nil
}

// currentUser is who this process runs as.
func currentUser() serverUser {
	gids, _ := os.Getgroups()
	return serverUser{uid: os.Geteuid(), gid: os.Getegid(), groups: append(gids, os.Getegid())}
}

// positiveInt reads a variable holding a number above zero (blank: def).
func positiveInt(getenv func(string) string, name string, def int) (int, error) {
	v := strings.TrimSpace(getenv(name))
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("invalid %s %q: use a whole number above 0 (default %d)", name, v, def)
	}
	return n, nil
}

// isLoopback reports whether host names only this machine.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Server serves one MCP server over streamable HTTP: the MCP endpoint and
// /metrics behind the bearer token, /healthz open to all.
type Server struct {
	MCP     *mcp.Server
	Metrics http.Handler // GET /metrics
	Health  http.Handler // GET /healthz
	Log     *slog.Logger
	Config  *Config
	// Public serves its handlers under their path prefixes without the
	// bearer token: each checks its own credential (ask_human's one-time
	// pages). OnListen, when set, learns the listener's address before
	// the first request.
	Public   map[string]http.Handler
	OnListen func(net.Addr) error
}

// Handler serves the MCP endpoint and /metrics behind the bearer-token
// check (requests without the right token get 401 and never reach the
// server), and /healthz without it.
func (s *Server) Handler() http.Handler {
	want := []byte(s.Config.Token)
	verify := func(_ context.Context, tok string, _ *http.Request) (*auth.TokenInfo, error) {
		if subtle.ConstantTimeCompare([]byte(tok), want) != 1 {
			return nil, auth.ErrInvalidToken
		}
		// The SDK refuses a token without an expiry; ours lives as long
		// as the server.
		return &auth.TokenInfo{Expiration: time.Now().Add(24 * time.Hour)}, nil
	}
	getServer := func(*http.Request) *mcp.Server { return s.MCP }
	// go-sdk v1.8.0 serves the sessionless protocol (2026-07-28 on) only
	// from a stateless handler, and sessions only from a stateful one: a
	// request goes to the one its Mcp-Protocol-Version header asks for
	// (that protocol requires the header on every request).
	sessions := mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{SessionTimeout: 30 * time.Minute})
	sessionless := mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{Stateless: true})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Protocol-Version") >= SessionlessProtocol {
			sessionless.ServeHTTP(w, r)
			return
		}
		sessions.ServeHTTP(w, r)
	})
	bearer := auth.RequireBearerToken(verify, nil)
	mux := http.NewServeMux()
	mux.Handle(Path, http.NewCrossOriginProtection().Handler(bearer(h)))
	mux.Handle("GET /metrics", checkHost(bearer(s.Metrics)))
	mux.Handle("GET /healthz", s.Health)
	for prefix, h := range s.Public {
		mux.Handle(prefix, h)
	}
	return capSessions(s.MCP, s.Config.MaxSessions, closeDenied(mux))
}

// httpServer is the HTTP server with the configured timeouts, its
// connections tracked by g.
func (s *Server) httpServer(g *guard) *http.Server {
	return &http.Server{
		Handler:           g.guardRequests(s.Config.Token, g.sessions.track(g, s.Handler())),
		ConnContext:       connContext,
		ConnState:         g.connState,
		ReadHeaderTimeout: s.Config.ReadHeader,
		ReadTimeout:       s.Config.Read,
		IdleTimeout:       s.Config.Idle,
		// No WriteTimeout: a wait answers after up to 55 s, and streams last.
	}
}

// ListenAndServe listens on the configured address, says on notes what a
// person needs to connect (a generated token), and serves until ctx is
// done (SIGTERM, SIGINT, SIGHUP); the caller then ends every process, as
// in stdio mode.
func (s *Server) ListenAndServe(ctx context.Context, notes io.Writer) error {
	ln, err := net.Listen("tcp", s.Config.Addr)
	if err != nil {
		return fmt.Errorf("listening for --http: %w", err)
	}
	if s.Config.Generated {
		fmt.Fprintf(notes, "yieldshell: no %s set; this run's bearer token is %s\n", TokenEnv, s.Config.Token)
	}
	if s.Config.TokenWarning != "" {
		s.Log.Warn("the bearer token may not be secret: " + s.Config.TokenWarning)
	}
	s.Log.Info("serving MCP over streamable HTTP", "url", "http://"+ln.Addr().String()+Path)
	return s.Serve(ctx, ln)
}

// Serve serves on ln until ctx is done, and closes ln.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	if s.OnListen != nil {
		if err := s.OnListen(ln.Addr()); err != nil {
			_ = ln.Close()
			return err
		}
	}
	g := newGuard(s.Config.MaxConns, max(s.Config.MaxAnonymous, 1), fdLimit())
	hs := s.httpServer(g)
	ln = &guardListener{Listener: ln, g: g}
	grace := cmp.Or(s.Config.SessionGrace, DefaultSessionGrace)
	jctx, stopJanitor := context.WithCancel(ctx)
	var janitor sync.WaitGroup
	janitor.Go(func() { g.sessions.endGone(jctx, s.MCP, grace) })
	defer janitor.Wait()
	defer stopJanitor()
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("serving http: %w", err)
	case <-ctx.Done():
	}
	// Streams stay open while clients listen: close them rather than wait.
	sctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		_ = hs.Close()
	}
	<-done
	return nil
}

// checkHost refuses, as the SDK does for /mcp, a request that reached a
// loopback address under a Host that is not loopback: a page on another
// site that rebinds its name to 127.0.0.1 reaches the server with its
// own name in Host (DNS rebinding).
func checkHost(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && local != nil {
			if isLoopbackAddr(local.String()) && !isLoopbackAddr(r.Host) {
				http.Error(w, fmt.Sprintf("Forbidden: invalid Host header %q", r.Host), http.StatusForbidden)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// isLoopbackAddr reports whether addr (host or host:port) names this
// machine only.
func isLoopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = strings.Trim(addr, "[]")
	}
	return isLoopback(host)
}

// closeDenied closes the connection after a 401 or 403: a client that is
// refused gets no kept-alive connection to hold. A 401 says which scheme
// it wants (RFC 9110 requires the challenge): Bearer, with no
// resource_metadata, since no OAuth is offered; without the header
// clients take a 401 for the start of OAuth discovery and report a
// failed dynamic client registration instead of a missing token.
func closeDenied(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(deniedCloser{w}, r)
	})
}

type deniedCloser struct{ http.ResponseWriter }

func (w deniedCloser) WriteHeader(code int) {
	if code == http.StatusUnauthorized || code == http.StatusForbidden {
		w.Header().Set("Connection", "close")
	}
	if code == http.StatusUnauthorized && w.Header().Get("WWW-Authenticate") == "" {
		w.Header().Set("WWW-Authenticate", `Bearer realm="yieldshell"`)
	}
	w.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach the connection (the SDK
// flushes streams through it).
func (w deniedCloser) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// capSessions refuses a request that would open an MCP session (one
// without a session id) while max sessions are open. A request of the
// sessionless protocol (2026-07-28) is a session while it runs, and counts.
func capSessions(srv *mcp.Server, max int, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.Header.Get("Mcp-Session-Id") == "" {
			n := 0
			for range srv.Sessions() {
				n++
			}
			if n >= max {
				w.Header().Set("Connection", "close")
				http.Error(w, fmt.Sprintf("too many MCP sessions (%d, %s); end one or raise the cap", n, MaxSessionsEnv), http.StatusServiceUnavailable)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}
