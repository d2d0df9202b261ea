package conformance

import (
	"bufio"
	"context"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// httpServer is the binary serving --http, and the URL it listens on.
type httpServer struct {
	cmd *exec.Cmd
	url string
	log *syncBuffer // the server's stderr so far
}

const httpToken = "conformance-token-0123456789"

func startHTTP(tb testing.TB, ctx context.Context, env ...string) *httpServer {
	tb.Helper()
	return startHTTPUnder(tb, ctx, nil, env...)
}

// startHTTPUnder is startHTTP with the binary run by wrap (its program and
// first arguments), e.g. a shell that lowers a limit first.
func startHTTPUnder(tb testing.TB, ctx context.Context, wrap []string, env ...string) *httpServer {
	tb.Helper()
	self, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	argv := append(slices.Clone(wrap), binPath, "--http", "127.0.0.1:0")
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.WaitDelay = 5 * time.Second
	cmd.Env = append(os.Environ(), helperEnv+"="+self, "GORACE=atexit_sleep_ms=0",
		"YIELDSHELL_HTTP_TOKEN="+httpToken, "YIELDSHELL_LOG_LEVEL=INFO")
	cmd.Env = append(cmd.Env, env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	urls := make(chan string, 1)
	logged := make(chan struct{})
	log := &syncBuffer{}
	go func() {
		defer close(logged)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			log.Write([]byte(line + "\n"))
			if _, u, ok := strings.Cut(line, "url="); ok && len(urls) == 0 {
				urls <- strings.Fields(u)[0]
			}
			if strings.Contains(line, "DATA RACE") {
				tb.Errorf("the server has a data race")
			}
		}
	}()
	tb.Cleanup(func() {
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			_ = cmd.Process.Kill() // Windows has no SIGTERM to send
		}
		_ = cmd.Wait()
		<-logged
	})
	select {
	case u := <-urls:
		return &httpServer{cmd: cmd, url: u, log: log}
	case <-logged:
		tb.Fatal("the server exited before it listened")
	case <-time.After(20 * time.Second):
		tb.Fatal("the server did not say where it listens")
	}
	return nil
}

func (h *httpServer) connect(token string) (*mcp.ClientSession, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return h.connectCtx(ctx, token)
}

func (h *httpServer) connectCtx(ctx context.Context, token string) (*mcp.ClientSession, error) {
	tr := &mcp.StreamableClientTransport{Endpoint: h.url, HTTPClient: &http.Client{Transport: bearer(token)}}
	return mcp.NewClient(&mcp.Implementation{Name: "conformance", Version: "0"}, nil).Connect(ctx, tr, nil)
}

type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// TestHTTPNoGETStreamQuiet: a session whose client keeps no GET stream
// open cannot receive the notifications each process start and end sends;
// that is no news for the operator, so it is not a WARN per process
// (issue 41 item 3). The roots/list a call sends on its own stream still
// reaches such a client.
func TestHTTPNoGETStreamQuiet(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	h := startHTTP(t, ctx)
	tr := &mcp.StreamableClientTransport{Endpoint: h.url, HTTPClient: &http.Client{Transport: bearer(httpToken)}, DisableStandaloneSSE: true}
	cctx, ccancel := context.WithTimeout(ctx, 10*time.Second)
	cs, err := rootsClient(t.TempDir()).Connect(cctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	ccancel()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	s := &server{t: t, cs: cs}
	// A session with a GET stream sees each list_changed; by the second,
	// the first session was notified (and failed) too.
	changed := make(chan struct{}, 10)
	listener := mcp.NewClient(&mcp.Implementation{Name: "conformance", Version: "0"}, &mcp.ClientOptions{
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { changed <- struct{}{} }})
	ltr := &mcp.StreamableClientTransport{Endpoint: h.url, HTTPClient: &http.Client{Transport: bearer(httpToken)}}
	cctx, ccancel = context.WithTimeout(ctx, 10*time.Second)
	other, err := listener.Connect(cctx, ltr, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	ccancel()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	seen := 0
	for range 20 {
		s.exec("true", nil).mustStatus(t, "completed")
		select {
		case <-changed:
			seen++
		case <-time.After(2 * time.Second): // the listener's stream may not be open yet
		}
		if seen == 2 {
			break
		}
	}
	if seen < 2 {
		t.Fatalf("the listening session saw %d resources/list_changed", seen)
	}
	if l := h.log.String(); strings.Contains(l, "level=WARN") {
		t.Errorf("warnings for a session without a GET stream:\n%s", l)
	}
}
