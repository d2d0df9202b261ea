package netproxy

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
)

// serveHTTP answers one HTTP proxy request: CONNECT opens a tunnel; an
// absolute-URI request (GET http://host/path) is forwarded once, with
// "Connection: close" so that the client's next request, which may be for
// another host, comes on a new connection and is checked again.
func (p *Proxy) serveHTTP(ctx context.Context, c *clientConn) {
	req, err := http.ReadRequest(c.br)
	if err != nil {
		if errors.Is(err, errHandshakeTooLong) {
			httpError(c, http.StatusRequestHeaderFieldsTooLarge, "request head too large")
		} else {
			httpError(c, http.StatusBadRequest, "malformed proxy request")
		}
		return
	}
	if req.Method == http.MethodConnect {
		p.serveConnect(ctx, c, req)
		return
	}
	p.forward(ctx, c, req)
}

func (p *Proxy) serveConnect(ctx context.Context, c *clientConn, req *http.Request) {
	host, port, ok := splitHostPort(req.Host, 0)
	if !ok {
		httpError(c, http.StatusBadRequest, "CONNECT needs host:port")
		return
	}
	dst, err := p.connect(ctx, c, host, port)
	if err != nil {
		httpDialError(c, err)
		return
	}
	if _, err := c.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n")); err != nil {
		dst.Close()
		return
	}
	c.established()
	pipe(ctx, c, dst)
}

func (p *Proxy) forward(ctx context.Context, c *clientConn, req *http.Request) {
	if req.URL.Scheme != "http" || req.URL.Host == "" {
		httpError(c, http.StatusBadRequest, "a proxy request needs an absolute http:// URI (use CONNECT for https)")
		return
	}
	host, port, ok := splitHostPort(req.URL.Host, 80)
	if !ok {
		httpError(c, http.StatusBadRequest, "bad host in request URI")
		return
	}
	dst, err := p.connect(ctx, c, host, port)
	if err != nil {
		httpDialError(c, err)
		return
	}
	defer dst.Close()
	stop := context.AfterFunc(ctx, func() { dst.Close() })
	defer stop()
	c.established()
	for _, h := range []string{"Proxy-Authorization", "Proxy-Connection", "Keep-Alive"} {
		req.Header.Del(h)
	}
	req.URL.User = nil
	req.Close = true
	if err := req.Write(dst); err != nil {
		return
	}
	lim := &limited{r: dst, n: maxHandshake}
	resp, err := http.ReadResponse(bufio.NewReaderSize(lim, 4096), req)
	if err != nil {
		httpError(c, http.StatusBadGateway, "bad response from the destination")
		return
	}
	lim.n = 1 << 62
	defer resp.Body.Close()
	resp.Close = true
	resp.Write(c)
}

// splitHostPort splits an authority (host, host:port, [v6]:port); a
// missing port is def, and none at all (def 0) is not ok.
func splitHostPort(authority string, def uint16) (string, uint16, bool) {
	host, ps, err := net.SplitHostPort(authority)
	if err != nil {
		if def == 0 || strings.Contains(authority, ":") && !strings.HasPrefix(authority, "[") {
			return "", 0, false
		}
		return strings.Trim(authority, "[]"), def, authority != ""
	}
	n, err := strconv.ParseUint(ps, 10, 16)
	if err != nil || host == "" {
		return "", 0, false
	}
	return host, uint16(n), true
}

// httpDialError answers a refused or failed connect: 403 names the host
// list, 502 says the destination could not be reached. The text names the
// destination and the cause only, never a header or the request.
func httpDialError(c *clientConn, err error) {
	if errors.Is(err, errDenied) {
		httpError(c, http.StatusForbidden, "yieldshell: "+err.Error())
		return
	}
	httpError(c, http.StatusBadGateway, "yieldshell sandbox proxy: "+err.Error())
}

func httpError(c *clientConn, code int, msg string) {
	fmt.Fprintf(c, "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s\n",
		code, http.StatusText(code), len(msg)+1, msg)
}
