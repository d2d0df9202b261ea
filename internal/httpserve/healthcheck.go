package httpserve

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// healthTimeout bounds one health check, under the image's 3 s timeout.
const healthTimeout = 2 * time.Second

// HealthCmd is `yieldshell healthcheck [ADDR]`: it asks the HTTP server on
// ADDR (or YIELDSHELL_HTTP_ADDR, which --http also reads, so a container's
// health check follows the port it is configured with) for /healthz and
// exits 0 when it answers 200: the container image's HEALTHCHECK, with no
// curl and no fixed port.
func HealthCmd(ctx context.Context, getenv func(string) string, args []string, stderr io.Writer) int {
	addr := strings.TrimSpace(getenv(AddrEnv))
	switch len(args) {
	case 0:
	case 1:
		addr = args[0]
	default:
		fmt.Fprintln(stderr, "usage: yieldshell healthcheck [ADDR]")
		return 2
	}
	if addr == "" {
		fmt.Fprintf(stderr, "yieldshell: healthcheck: no address: give ADDR (as for --http) or set %s\n", AddrEnv)
		return 2
	}
	url, err := healthURL(addr)
	if err != nil {
		fmt.Fprintln(stderr, "yieldshell: healthcheck:", err)
		return 2
	}
	ctx, cancel := context.WithTimeout(ctx, healthTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		fmt.Fprintln(stderr, "yieldshell: healthcheck:", err)
		return 2
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Fprintln(stderr, "yieldshell: healthcheck:", err)
		return 1
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		fmt.Fprintf(stderr, "yieldshell: healthcheck: %s answered %s\n", url, res.Status)
		return 1
	}
	return 0
}

// healthURL is /healthz on the server that --http ADDR serves, reached
// over loopback when ADDR listens on every interface.
func healthURL(addr string) (string, error) {
	if !strings.Contains(addr, ":") {
		addr = ":" + addr
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("invalid address %q: %w; use PORT, HOST:PORT or [IPv6]:PORT", addr, err)
	}
	switch ip := net.ParseIP(host); {
	case host == "" || ip != nil && ip.To4() != nil && ip.IsUnspecified():
		host = "127.0.0.1"
	case ip != nil && ip.IsUnspecified():
		host = "::1"
	}
	return "http://" + net.JoinHostPort(host, port) + "/healthz", nil
}
