package netproxy

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/yieldshell/yieldshell/internal/poll"
)

// readAllUntil reads c to its end, failing the test if that takes more
// than the deadline (the proxy should have closed it).
func readAllUntil(t *testing.T, c net.Conn, within time.Duration) string {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(within))
	b, err := io.ReadAll(c)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("the proxy kept the connection open (read %q)", b)
	}
	return string(b)
}

func TestProxySilentClientIsClosed(t *testing.T) {
	_, addr := startProxy(t, Config{HandshakeTimeout: 50 * time.Millisecond})
	for _, start := range []string{"", "CONNECT listed.test:80 HTTP/1.1\r\n", "\x05\x01"} {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		c.Write([]byte(start))
		readAllUntil(t, c, 10*time.Second)
		c.Close()
	}
}

func TestProxyHugeHeadIsRefused(t *testing.T) {
	_, addr := startProxy(t, Config{})
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	go func() {
		fmt.Fprintf(c, "GET http://listed.test/ HTTP/1.1\r\nX: %s", strings.Repeat("a", 1<<20))
	}()
	if got := readAllUntil(t, c, 10*time.Second); !strings.HasPrefix(got, "HTTP/1.1 431 ") {
		t.Errorf("answer %.80q, want 431", got)
	}
}

func TestProxyConnectionLimit(t *testing.T) {
	const max = 3
	u := startUpstream(t)
	_, addr := startProxy(t, Config{MaxConns: max})
	var held []net.Conn
	for range max {
		c, err := dialConnect(addr, fmt.Sprintf("listed.test:%d", u.port))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		held = append(held, c)
	}
	over, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer over.Close()
	if got := readAllUntil(t, over, 10*time.Second); got != "" {
		t.Errorf("a connection over the limit got %q", got)
	}
	held[0].Close()
	// The slot comes back once the proxy has seen the close.
	poll.Until(t, 10*time.Second, "a slot to come back after a close", func() bool {
		body, err := get(t, "http", addr, fmt.Sprintf("listed.test:%d", u.port))
		return err == nil && strings.HasPrefix(body, "hello")
	})
}

func TestProxyNeverEchoesCredentials(t *testing.T) {
	u := startUpstream(t)
	p, addr := startProxy(t, Config{})
	const secret = "s3cr3t-token"
	requests := []string{
		fmt.Sprintf("GET http://user:%s@unlisted.test:%d/ HTTP/1.1\r\nHost: unlisted.test\r\nProxy-Authorization: Basic %s\r\n\r\n", secret, u.port, secret),
		fmt.Sprintf("CONNECT unlisted.test:%d HTTP/1.1\r\nProxy-Authorization: Basic %s\r\n\r\n", u.port, secret),
		fmt.Sprintf("GET http://%s@nowhere.invalid/ HTTP/1.1\r\n\r\n", secret),
		fmt.Sprintf("GET /%s HTTP/1.1\r\n\r\n", secret),
		fmt.Sprintf("CONNECT %s HTTP/1.1\r\n\r\n", secret),
		fmt.Sprintf("GET http://user:%s@listed.test:%d/ HTTP/1.1\r\nHost: listed.test\r\nProxy-Authorization: Basic %s\r\n\r\n", secret, u.port, secret),
	}
	for _, req := range requests {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		c.Write([]byte(req))
		if got := readAllUntil(t, c, 10*time.Second); strings.Contains(got, secret) {
			t.Errorf("answer to %q shows the secret: %q", req, got)
		}
		c.Close()
	}
	denials, _ := p.TakeDenials()
	if s := fmt.Sprint(denials); strings.Contains(s, secret) {
		t.Errorf("denials show the secret: %s", s)
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	for _, h := range u.headers {
		if strings.Contains(fmt.Sprint(h), secret) {
			t.Errorf("the destination was sent the proxy credential: %v", h)
		}
	}
}

func TestServeEndsTunnelsAndJoins(t *testing.T) {
	u := startUpstream(t)
	l, _ := Parse(testList)
	p := New(Config{Hosts: l, Resolver: testResolver()})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Serve(ctx, ln) }()
	c, err := dialConnect(ln.Addr().String(), fmt.Sprintf("listed.test:%d", u.port))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve = %v, want nil after cancel", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return with a tunnel open")
	}
	readAllUntil(t, c, 10*time.Second) // the tunnel was closed
	if _, err := net.Dial("tcp", ln.Addr().String()); err == nil {
		t.Error("the listener still accepts after Serve returned")
	}
}

func TestProxyForwardsBodyAndAnswer(t *testing.T) {
	u := startUpstream(t)
	_, addr := startProxy(t, Config{})
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST http://listed.test:%d/up HTTP/1.1\r\nHost: listed.test\r\nContent-Length: 5\r\n\r\nhello", u.port)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || string(b) != fmt.Sprintf("hello listed.test:%d /up", u.port) || !resp.Close {
		t.Errorf("answer %d %q close=%v", resp.StatusCode, b, resp.Close)
	}
}
