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
	go func() {
		defer close(logged)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
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
		return &httpServer{cmd: cmd, url: u}
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
