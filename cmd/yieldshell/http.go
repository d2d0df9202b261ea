//go:build unix

package main

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/metrics"
)

// The environment variables that carry the bearer token for --http.
const (
	tokenEnv     = "YIELDSHELL_HTTP_TOKEN"
	tokenFileEnv = "YIELDSHELL_HTTP_TOKEN_FILE"
)

// httpPath is where the MCP endpoint is served.
const httpPath = "/mcp"

// httpConfig is what --http needs, checked before anything starts.
type httpConfig struct {
	addr      string // host:port to listen on
	token     string
	generated bool // no token was configured: one was made for this run
}

// loadHTTPConfig resolves the listening address and the bearer token. An
// address without a host binds to loopback; a non-loopback address needs a
// configured token. On loopback without one, a random token is generated
// and printed, so the endpoint is never open to other local users.
func loadHTTPConfig(addr, tokenFile string, getenv func(string) string) (*httpConfig, error) {
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
	hc := &httpConfig{addr: net.JoinHostPort(host, port)}
	if tokenFile == "" {
		tokenFile = getenv(tokenFileEnv)
	}
	switch {
	case tokenFile != "":
		b, err := os.ReadFile(tokenFile)
		if err != nil {
			return nil, fmt.Errorf("reading the bearer token: %w", err)
		}
		hc.token = strings.TrimSpace(string(b))
		if hc.token == "" {
			return nil, fmt.Errorf("reading the bearer token: %s is empty", tokenFile)
		}
	case getenv(tokenEnv) != "":
		hc.token = strings.TrimSpace(getenv(tokenEnv))
	case !isLoopback(host):
		return nil, fmt.Errorf("--http %s listens beyond this machine and needs a bearer token: set %s or %s, or pass --token-file", hc.addr, tokenEnv, tokenFileEnv)
	default:
		hc.token, hc.generated = rand.Text(), true
	}
	if len(hc.token) < 16 {
		return nil, errors.New("the bearer token is too short: use at least 16 characters (e.g. openssl rand -hex 32)")
	}
	return hc, nil
}

// isLoopback reports whether host names only this machine.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// httpHandler serves the MCP endpoint and /metrics behind the bearer-token
// check (requests without the right token get 401 and never reach the
// server), and /healthz without it.
func httpHandler(srv *mcp.Server, m *metrics.Metrics, token string) http.Handler {
	want := []byte(token)
	verify := func(_ context.Context, tok string, _ *http.Request) (*auth.TokenInfo, error) {
		if subtle.ConstantTimeCompare([]byte(tok), want) != 1 {
			return nil, auth.ErrInvalidToken
		}
		// The SDK refuses a token without an expiry; ours lives as long
		// as the server.
		return &auth.TokenInfo{Expiration: time.Now().Add(24 * time.Hour)}, nil
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{SessionTimeout: 30 * time.Minute})
	bearer := auth.RequireBearerToken(verify, nil)
	mux := http.NewServeMux()
	mux.Handle(httpPath, http.NewCrossOriginProtection().Handler(bearer(h)))
	mux.Handle("GET /metrics", bearer(m.Handler()))
	mux.Handle("GET /healthz", metrics.Health())
	return mux
}

// serveHTTP serves a over streamable HTTP until ctx is done (SIGTERM,
// SIGINT, SIGHUP); the caller then ends every process, as in stdio mode.
func serveHTTP(ctx context.Context, a *app, hc *httpConfig, stderr io.Writer) error {
	ln, err := net.Listen("tcp", hc.addr)
	if err != nil {
		return fmt.Errorf("listening for --http: %w", err)
	}
	url := "http://" + ln.Addr().String() + httpPath
	if hc.generated {
		fmt.Fprintf(stderr, "yieldshell: no %s set; this run's bearer token is %s\n", tokenEnv, hc.token)
	}
	a.log.Info("serving MCP over streamable HTTP", "url", url)
	hs := &http.Server{Handler: httpHandler(a.srv, a.metrics, hc.token), ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err = <-done:
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
